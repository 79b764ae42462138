#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest half of the Prometheus scrape test (tools/prometheus/test.sh):
# qpistat --listen as a non-root user with only CAP_PERFMON, reached from
# the host through run-vm --hostfwd HOST:9100 --hostfwd HOST:9101.  The
# host sends "inject" and then "done" on port 9101; in between it scrapes
# with a real Prometheus, sends bad requests and concurrent scrapers.  The
# traffic runs at a steady rate for SECS seconds; its start is told to the
# host by a connection to 10.0.2.2:$QPI_ACK_PORT (the host's loopback), so
# that the host knows when, on its own clock, the bytes were injected.
# Then the same for qpistat --textfile read by node_exporter (Debian's
# prometheus-node-exporter, copied into the guest by the host), reached
# through --hostfwd HOST:9104: "inject2", traffic told to
# $QPI_ACK_PORT2, "done2".
# Run otherwise (no QPI_HOSTFWD=1 in the environment), it skips.
. "$(dirname "$0")/lib.sh"

QPISTAT=/tools/bin/qpistat
[ -x "$QPISTAT" ] || QPISTAT=$HERE/../tools/qpistat/qpistat
SETPRIV=/usr/libexec/qpivm/setpriv
RX_RATE=2000		# DRS packets (64 data bytes) a second, in on s0 p0 (sent by s1 p0)
TX_RATE=1000		# and out on s0 p0, to s1 p0 at the far end of its link
SECS=20
NODE_EXPORTER=/tools/bin/prometheus-node-exporter
TEXTFILE_DIR=/tmp/textfile

if [ "${QPI_HOSTFWD:-}" != 1 ]; then
	echo "TAP version 13"
	echo "1..0 # SKIP needs run-vm --hostfwd (tools/prometheus/test.sh)"
	exit $KSFT_SKIP
fi

ktap_plan 11

# centiseconds since boot
uptime_cs()
{
	read -r up _ < /proc/uptime
	echo "${up%.*}${up#*.}"
}

# ctl WORD: wait (at most 240 s) for the host to send WORD on port 9101
ctl()
{
	got=$(timeout 240 nc -l -p 9101 < /dev/null | tr -d '\r\n')
	[ "$got" = "$1" ] || fail "control port: got '$got', want '$1'"
}

# fds PID: the fewest open fds of PID in five looks (a scrape in flight
# holds one more for a moment)
fds()
{
	min=
	for i in 1 2 3 4 5; do
		n=$(ls "/proc/$1/fd" | wc -l)
		[ -z "$min" ] || [ "$n" -lt "$min" ] && min=$n
		sleep 0.2
	done
	echo "$min"
}

qpiu_unload
qpisim_unload

t_begin "listen_clear_messages"
out=$("$QPISTAT" --listen 127.0.0.1:9100 2>&1)
expect_num "exit status without PMUs (EX_UNAVAILABLE)" $? 69
expect_eq "first line without PMUs" "$(echo "$out" | head -n 1)" \
	"qpistat: no uncore_qpi_* PMU in /sys/bus/event_source/devices."
expect_num "lines without PMUs" "$(echo "$out" | wc -l)" 3
out=$("$QPISTAT" --listen 127.0.0.1:0 2>&1)
expect_num "exit status for port 0" $? 2
expect_eq "bad --listen" "$out" "qpistat: --listen '127.0.0.1:0': want [ADDR:]PORT, [IPV6]:PORT or ADDR, PORT 1-65535"
"$QPISTAT" --listen 9100 --json > /dev/null 2>&1
expect_num "exit status for --listen with --json" $? 2
expect_ok "load qpisim" qsim ivbep sockets=2 qpi_rate=7
expect_ok "load qpi_uncore" qpiu_load
# Every port counts at the sending end here (qpisim's wiring is the map
# qpistat reads), so the health events take turns on each box's spare
# counter, perf rotating them at its default interval, while the pinned
# bandwidth group counts.  A lone event's turn reprograms only its own
# counter (qpi_uncore.rst, "Counting"), so every packet qpisim injects
# reaches Prometheus: the bandwidth asserted below is exact with rotation
# running.
# Debian's default 3 refuses even CAP_PERFMON (it wants CAP_SYS_ADMIN)
old=$(cat /proc/sys/kernel/perf_event_paranoid)
echo 3 > /proc/sys/kernel/perf_event_paranoid
out=$("$SETPRIV" --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all,+perfmon \
	--ambient-caps=-all,+perfmon -- "$QPISTAT" --listen 127.0.0.1:9100 2>&1)
expect_num "exit status at paranoid 3 (EX_NOPERM)" $? 77
expect_eq "advice at paranoid 3" "$(echo "$out" | sed -n 7,8p)" \
"  kernel.perf_event_paranoid is 3: above 2 this kernel wants root (CAP_SYS_ADMIN)
  and refuses CAP_PERFMON alone; at 2, upstream's default, CAP_PERFMON is enough."
echo 2 > /proc/sys/kernel/perf_event_paranoid
out=$("$SETPRIV" --reuid=65534 --regid=65534 --clear-groups -- "$QPISTAT" --listen 127.0.0.1:9100 2>&1)
expect_num "exit status without CAP_PERFMON (EX_NOPERM)" $? 77
expect_eq "first line without CAP_PERFMON" "$(echo "$out" | head -n 1)" \
	"qpistat: permission denied opening qpi events."
expect_num "lines without CAP_PERFMON" "$(echo "$out" | wc -l)" 8
# CAP_PERFMON first, the sysctl last
expect_eq "first remedy" "$(echo "$out" | sed -n 3p)" \
	"    sudo setcap cap_perfmon+ep $(readlink -f "$QPISTAT")  (anyone who can run it gets it)"
echo "$out" | tail -n 2 | grep -qF "sudo sysctl kernel.perf_event_paranoid=0 (it is 2)" ||
	fail "paranoid value not named last: $out"
# nc must hold the port before qpistat tries it: wait until the port
# listens (/proc/net/tcp, 9102 = 0x238E, state 0A; a guard of 10 s), and
# keep qpistat from serving for good should it get the port all the same
nc -l -p 9102 < /dev/null > /dev/null 2>&1 &
busy=$!
i=0
until grep -q ':238E 00000000:0000 0A' /proc/net/tcp || [ $i -ge 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
out=$(timeout 30 "$QPISTAT" --listen 127.0.0.1:9102 2>&1)
expect_num "exit status with the port taken" $? 1
expect_eq "port taken" "$out" "qpistat: cannot listen on 127.0.0.1:9102: Address already in use"
kill "$busy" 2> /dev/null
wait "$busy" 2> /dev/null
t_end

t_begin "root_serves_as_nobody"
# started as root, it serves as 65534:65534 with no new privileges
"$QPISTAT" --listen 127.0.0.1:9103 2> /tmp/root.err &
rpid=$!
for i in $(seq 50); do
	[ -s /tmp/root.err ] && break
	sleep 0.1
done
expect_eq "startup line as root" "$(cat /tmp/root.err)" \
	"qpistat: serving 4 QPI ports and 4 R3QPI links at http://127.0.0.1:9103/metrics"
expect_eq "uids and gids as root" \
	"$(awk '/^(Uid|Gid):/ { printf "%s %s %s %s %s;", $1, $2, $3, $4, $5 }' "/proc/$rpid/status")" \
	"Uid: 65534 65534 65534 65534;Gid: 65534 65534 65534 65534;"
expect_eq "NoNewPrivs as root" "$(awk '/^NoNewPrivs:/ { print $2 }' "/proc/$rpid/status")" 1
expect_eq "CapEff as root" "$(awk '/^CapEff:/ { print $2 }' "/proc/$rpid/status")" 0000000000000000
kill -TERM "$rpid"
wait "$rpid"
expect_num "exit status as root" $? 0
t_end

t_begin "textfile_output"
# for promtool check metrics on the host, which reads it from the console
out=$("$QPISTAT" --prometheus -- sh -c \
	"echo 'packet socket=1 port=1 dir=tx mc=drs count=100' > $DBG/inject")
echo "$out" | grep -qxF 'qpi_rx_bytes_total{socket="0",port="1"} 6400' ||
	fail "no 6400 B received on socket 0 port 1: $out"
echo "$out" | sed 's/^/# textfile: /'
t_end

t_begin "network_up"
expect_ok "load e1000" insmod /lib/modules/net/e1000.ko
expect_ok "eth0 up" ip link set eth0 up
expect_ok "address" ip addr add 10.0.2.15/24 dev eth0
expect_ok "route" ip route add default via 10.0.2.2
ip link set lo up
t_end

t_begin "serves_as_nobody_with_cap_perfmon"
"$SETPRIV" --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all,+perfmon \
	--ambient-caps=-all,+perfmon --bounding-set=-all,+perfmon -- \
	"$QPISTAT" --listen 0.0.0.0:9100 2> /tmp/exporter.err &
pid=$!
for i in $(seq 50); do
	[ -s /tmp/exporter.err ] && break
	sleep 0.1
done
expect_eq "startup line" "$(cat /tmp/exporter.err)" \
	"qpistat: serving 4 QPI ports and 4 R3QPI links at http://0.0.0.0:9100/metrics"
expect_eq "uid" "$(awk '/^Uid:/ { print $2 "," $3 }' "/proc/$pid/status")" "65534,65534"
# it opened the events with CAP_PERFMON (without, it exits 77 above) and
# dropped every capability before serving
for caps in CapInh CapPrm CapEff CapAmb; do
	expect_eq "$caps while serving" \
		"$(awk "/^$caps:/ { print \$2 }" "/proc/$pid/status")" "0000000000000000"
done
expect_eq "NoNewPrivs while serving" "$(awk '/^NoNewPrivs:/ { print $2 }' "/proc/$pid/status")" 1
out=$(wget -q -O - http://127.0.0.1:9100/metrics)
echo "$out" | grep -qxF 'qpi_rx_bytes_total{socket="0",port="0"} 0' ||
	fail "no zero rx bytes before the traffic: $out"
if ! kill -0 "$pid" 2> /dev/null; then
	fail "the exporter is not running: $(cat /tmp/exporter.err)"
	t_end
	# the host half stops waiting when this guest powers off
	for t in traffic_on_request no_fd_leak_after_the_host_probes \
		still_serves_exactly sigterm_ends_cleanly; do
		t_begin "$t"
		fail "no exporter"
		t_end
	done
	echo "$old" > /proc/sys/kernel/perf_event_paranoid
	ktap_finish
fi
fds0=$(fds "$pid")
echo "# exporter pid $pid, $fds0 fds"
t_end

# steady ACK_PORT: RX_RATE and TX_RATE DRS packets a second for SECS s,
# the start told to the host's ACK_PORT.  Every ~0.1 s it injects what is
# due by the clock since the start, so that a late step catches up
# instead of slowing the rate.
steady()
{
	echo start | nc 10.0.2.2 "$1" > /dev/null 2>&1 ||
		fail "could not tell the host the traffic starts"
	t0=$(uptime_cs)
	rx=0 tx=0 el=0
	while [ "$el" -lt $((SECS * 100)) ]; do
		el=$(($(uptime_cs) - t0))
		[ "$el" -le $((SECS * 100)) ] || el=$((SECS * 100))
		# what s1 p0 sends arrives at s0 p0 and the other way
		# round (qpisim's link map, the map qpistat reads: each
		# port's receive is its far end's send)
		n=$((RX_RATE * el / 100 - rx))
		[ "$n" -le 0 ] || inject "packet socket=1 port=0 dir=tx mc=drs count=$n"
		rx=$((rx + n))
		n=$((TX_RATE * el / 100 - tx))
		[ "$n" -le 0 ] || inject "packet socket=0 port=0 dir=tx mc=drs count=$n"
		tx=$((tx + n))
		sleep 0.1
	done
	echo "# injected $rx DRS in and $tx out in $SECS s"
}

t_begin "traffic_on_request"
ctl inject
for r in 1 2 3 4 5; do
	inject "event socket=0 box=r3qpi0 event=0x34 umask=0x8 count=50 cycles=1000"
done
steady "$QPI_ACK_PORT"
out=$(wget -q -O - http://127.0.0.1:9100/metrics)
for want in "qpi_rx_bytes_total{socket=\"0\",port=\"0\"} $((RX_RATE * SECS * 64))" \
	"qpi_tx_bytes_total{socket=\"0\",port=\"0\"} $((TX_RATE * SECS * 64))" \
	'r3qpi_vna_credit_rejects_total{socket="0",link="0"} 250'; do
	echo "$out" | grep -qxF "$want" || fail "no line '$want'"
done
t_end

t_begin "no_fd_leak_after_the_host_probes"
ctl done
kill -0 "$pid" 2> /dev/null || fail "the exporter died: $(cat /tmp/exporter.err)"
expect_num "open fds" "$(fds "$pid")" "$fds0"
t_end

t_begin "still_serves_exactly"
out=$(wget -q -O - http://127.0.0.1:9100/metrics)
for want in "qpi_rx_bytes_total{socket=\"0\",port=\"0\"} $((RX_RATE * SECS * 64))" \
	"qpi_tx_bytes_total{socket=\"0\",port=\"0\"} $((TX_RATE * SECS * 64))" \
	"qpi_rx_flits_total{socket=\"0\",port=\"0\"} $((RX_RATE * SECS * 9))" \
	'qpi_link_speed_transfers_per_second{socket="1",port="1"} 9600000000'; do
	echo "$out" | grep -qxF "$want" || fail "no line '$want'"
done
t_end

t_begin "sigterm_ends_cleanly"
kill -TERM "$pid"
wait "$pid"
expect_num "exit status" $? 0
expect_eq "messages" "$(tail -n +2 /tmp/exporter.err)" "qpistat: Terminated, stopping"
t_end

t_begin "textfile_for_node_exporter"
# qpistat --textfile as nobody with CAP_PERFMON, every 0.5 s, into the
# directory node_exporter reads; the host's Prometheus scrapes
# node_exporter while the same traffic runs again.
mkdir -p "$TEXTFILE_DIR"
chown 65534:65534 "$TEXTFILE_DIR"
"$SETPRIV" --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all,+perfmon \
	--ambient-caps=-all,+perfmon --bounding-set=-all,+perfmon -- \
	"$QPISTAT" --textfile "$TEXTFILE_DIR/qpi.prom" -I 500 2> /tmp/textfile.err &
tpid=$!
"$NODE_EXPORTER" --collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$TEXTFILE_DIR" --web.listen-address=0.0.0.0:9104 \
	> /tmp/node.log 2>&1 &
npid=$!
for i in $(seq 50); do
	[ -s "$TEXTFILE_DIR/qpi.prom" ] && break
	sleep 0.1
done
grep -qxF 'qpi_rx_bytes_total{socket="0",port="0"} 0' "$TEXTFILE_DIR/qpi.prom" ||
	fail "no zero rx bytes in the first file: $(cat "$TEXTFILE_DIR/qpi.prom" /tmp/textfile.err)"
expect_eq "NoNewPrivs of --textfile" "$(awk '/^NoNewPrivs:/ { print $2 }' "/proc/$tpid/status")" 1
expect_eq "CapEff of --textfile" "$(awk '/^CapEff:/ { print $2 }' "/proc/$tpid/status")" \
	0000000000000000
ctl inject2
steady "$QPI_ACK_PORT2"
# qpistat rewrites the file every 500 ms: wait for one with every line
# wanted (a guard of 30 s), however late the guest runs it
i=0
while :; do
	miss=
	for want in "qpi_rx_bytes_total{socket=\"0\",port=\"0\"} $((RX_RATE * SECS * 64))" \
		"qpi_tx_bytes_total{socket=\"0\",port=\"0\"} $((TX_RATE * SECS * 64))" \
		"qpi_rx_flits_total{socket=\"0\",port=\"0\"} $((RX_RATE * SECS * 9))"; do
		grep -qxF "$want" "$TEXTFILE_DIR/qpi.prom" || { miss=$want; break; }
	done
	[ -z "$miss" ] || [ $i -ge 300 ] && break
	sleep 0.1
	i=$((i + 1))
done
[ -z "$miss" ] || fail "no line '$miss' in the file"
t_end

t_begin "textfile_ends_cleanly"
ctl done2
kill -0 "$tpid" 2> /dev/null || fail "qpistat --textfile died: $(cat /tmp/textfile.err)"
kill -0 "$npid" 2> /dev/null || fail "node_exporter died: $(tail -n 5 /tmp/node.log)"
kill -TERM "$tpid"
wait "$tpid"
expect_num "exit status of --textfile" $? 0
# its one start-up line, nothing else
expect_eq "messages of --textfile" "$(cat /tmp/textfile.err)" \
	"qpistat: writing 4 QPI ports and 4 R3QPI links to $TEXTFILE_DIR/qpi.prom every 500 ms"
# the temporary files were renamed, none is left
expect_eq "files in the directory" "$(ls -a "$TEXTFILE_DIR" | tr '\n' ' ')" ". .. qpi.prom "
kill "$npid"
wait "$npid" 2> /dev/null
echo "$old" > /proc/sys/kernel/perf_event_paranoid
t_end

qpiu_unload
qpisim_unload
ktap_finish
