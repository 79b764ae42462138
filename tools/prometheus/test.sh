#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Prometheus stage of make check (KTAP):
#  - promtool check rules and promtool test rules on qpi.rules.yml;
#  - a real scrape: a guest runs qpistat --listen (selftests/
#    qpistat_exporter.sh) behind run-vm --hostfwd; a Prometheus server on
#    the host, on loopback, scrapes it every second while the guest injects
#    traffic at a known steady rate; rate() and increase() from its HTTP
#    API over a window inside the injection, and every scraped sample,
#    must match the injection within one scrape interval.  Also
#    promtool check metrics on the guest's real output, OpenMetrics by
#    Accept, bad requests, a stalled client and 8 concurrent scrapers;
#  - node_exporter's textfile collector: the guest runs qpistat --textfile
#    and Debian's prometheus-node-exporter (copied into the guest) on its
#    directory; Prometheus scrapes node_exporter while the guest injects
#    the same traffic again; rate(), increase() and every sample as above;
#  - the Grafana dashboard qpi-dashboard.json: dashboard.py lint checks it
#    on the host; then every panel's query runs on the same Prometheus,
#    which also scrapes an HSX exporter on the host (qpistat built on a
#    fake sysfs, as for the host tests) for the panels of the series only
#    HSX/BDX export: each must return series on its platforms.
# The guest's own cases are reported here too, as "guest: <name>".
# Usage: tools/prometheus/test.sh [--build]  (default: no make before the VM)
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cd "$repo" || exit 1
build=--no-build
[[ ${1:-} == --build ]] && build=
tmp=$(mktemp -d)
prom_pid='' vm_pid='' ack_pid='' ack2_pid='' hsx_pid=''
# node_exporter for the guest: run-vm's initramfs takes what QPI_VM_BIN holds
guestbin=$tmp/guestbin
cleanup() {
	[[ -z $prom_pid ]] || kill "$prom_pid" 2> /dev/null
	[[ -z $ack_pid ]] || kill "$ack_pid" 2> /dev/null
	[[ -z $ack2_pid ]] || kill "$ack2_pid" 2> /dev/null
	[[ -z $hsx_pid ]] || kill "$hsx_pid" 2> /dev/null
	# run-vm leads its own process group: QEMU goes with it
	[[ -z $vm_pid ]] || kill -- "-$vm_pid" 2> /dev/null
	wait 2> /dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

. "$repo/tools/ktap.sh"

# indent OUTPUT as KTAP diagnostics
diag() { sed 's/^/# /'; }

echo "KTAP version 1"

for c in promtool prometheus curl python3 prometheus-node-exporter; do
	command -v "$c" > /dev/null ||
		{ echo "# $c missing: apt-get install prometheus prometheus-node-exporter curl python3"; }
done

# qpistat's HTTP host tests are make check's qpistat-unit stage.

# ---- the rules
promtool check rules tools/prometheus/qpi.rules.yml > "$tmp/out" 2>&1
r=$?
[[ $r == 0 ]] || diag < "$tmp/out"
result $r "promtool check rules qpi.rules.yml"
(cd tools/prometheus && promtool test rules qpi.rules.test.yml) > "$tmp/out" 2>&1
r=$?
[[ $r == 0 ]] || diag < "$tmp/out"
result $r "promtool test rules: every alert and recording rule (qpi.rules.test.yml)"

# ---- the dashboard, on the host
python3 tools/prometheus/dashboard.py lint > "$tmp/out" 2>&1
r=$?
cat "$tmp/out"
result $r "qpi-dashboard.json: parses, schemaVersion, datasource and instance/socket/port variables, every panel with the datasource and targets, every metric name qpistat's or a rule's"

# ---- the systemd unit and the rules, installed
make -s install-userspace DESTDIR="$tmp/inst" PREFIX=/usr/local > "$tmp/out" 2>&1
r=$?
unit=$tmp/inst/etc/systemd/system/qpistat.service
[[ -f $tmp/inst/usr/local/share/qpistat/prometheus/qpi.rules.yml ]] ||
	{ echo "# no prometheus/qpi.rules.yml installed"; r=1; }
cmp -s tools/prometheus/qpi-dashboard.json "$tmp/inst/usr/local/share/qpistat/grafana/qpi-dashboard.json" ||
	{ echo "# no grafana/qpi-dashboard.json installed"; r=1; }
grep -qx 'ExecStart=/usr/local/bin/qpistat --listen 127.0.0.1:9739' "$unit" ||
	{ echo "# not the unit's ExecStart"; r=1; }
# CAP_SYS_ADMIN only until the events are open (qpistat drops it before
# its first request): a distribution's default perf_event_paranoid lets
# nothing less open a system-wide event
for want in DynamicUser=yes AmbientCapabilities=CAP_SYS_ADMIN CapabilityBoundingSet=CAP_SYS_ADMIN \
	NoNewPrivileges=yes Documentation=man:qpistat\(1\) WantedBy=qpi-pmon.target; do
	grep -qx "$want" "$unit" || { echo "# no $want in the unit"; r=1; }
done
tunit=$tmp/inst/etc/systemd/system/qpistat-textfile.service
grep -qx 'ExecStart=/usr/local/bin/qpistat --textfile /var/lib/prometheus/node-exporter/qpi.prom -I 15000' \
	"$tunit" || r=1
for want in AmbientCapabilities=CAP_SYS_ADMIN CapabilityBoundingSet=CAP_SYS_ADMIN ProtectSystem=strict \
	ReadWritePaths=-/var/lib/prometheus/node-exporter PrivateNetwork=yes WantedBy=qpi-pmon.target; do
	grep -qx "$want" "$tunit" || { echo "# no $want in the textfile unit"; r=1; }
done
if command -v systemd-analyze > /dev/null; then
	# verify wants the binary to exist: point it at the built one; and
	# the man page of Documentation=: the one just installed
	for u in "$unit" "$tunit"; do
		sed "s|/usr/local/bin/qpistat|$repo/tools/qpistat/qpistat|" "$u" > "$tmp/${u##*/}"
		MANPATH=$tmp/inst/usr/local/share/man systemd-analyze verify "$tmp/${u##*/}" >> "$tmp/out" 2>&1 || r=1
	done
fi
make -s uninstall DESTDIR="$tmp/inst" PREFIX=/usr/local KDIR=/nonexistent KVER=none >> "$tmp/out" 2>&1
[[ -e $unit || -e $tunit || -e $tmp/inst/usr/local/share/qpistat ]] &&
	{ echo "# make uninstall left files"; r=1; }
[[ $r == 0 ]] || diag < "$tmp/out"
result $r "make install-userspace: qpistat.service (non-root, CAP_SYS_ADMIN only, dropped by qpistat once its events are open), qpistat-textfile.service (the same, writes node_exporter's directory only), both wanted by qpi-pmon.target, both through systemd-analyze verify, qpi.rules.yml and grafana/qpi-dashboard.json; uninstall removes them"

# ---- the scrape
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# exporter, control, Prometheus, traffic acks, node_exporter, the host's
# HSX exporter: all different
ports=()
while ((${#ports[@]} < 7)); do
	p=$(free_port)
	[[ " ${ports[*]} " == *" $p "* ]] || ports+=("$p")
done
hport=${ports[0]} cport=${ports[1]} pport=${ports[2]} aport=${ports[3]}
a2port=${ports[4]} nport=${ports[5]} fport=${ports[6]}
exporter=http://127.0.0.1:$hport
api=http://127.0.0.1:$pport/api/v1

# An HSX exporter on the host, for the dashboard's panels of the series
# only HSX and BDX export (health, qpi_tx_flits): qpistat's own code and
# HSX plan (/proc/cpuinfo model 63) on a fake sysfs of two sockets, each
# with one QPI port and one R3QPI link, counted by software events that
# count nothing, as qpistat_fake of the host tests (tools/qpistat/Makefile).
# Its series exist, at 0; a second guest would cost minutes for the same
# names.  Two sockets whose ports 0 face each other, as qpi_uncore
# publishes the silicon's map (uncore_qpi_0/die0, die1 and link/): the
# per-port receive from the far end and the link panels return series.
fake=$tmp/fake/sys/bus/event_source/devices
mkdir -p "$fake/uncore_qpi_0/events" "$fake/uncore_r3qpi_0/events"
for b in uncore_qpi_0 uncore_r3qpi_0; do
	echo 1 > "$fake/$b/type"
	echo 0-1 > "$fake/$b/cpumask"
	echo event=0xff > "$fake/$b/events/foreign_writes"
done
printf '0 9.6\n1 9.6\n' > "$fake/uncore_qpi_0/link_speed"
mkdir -p "$fake/uncore_qpi_0/link"
echo qpi_0,die_1 > "$fake/uncore_qpi_0/die0"
echo qpi_0,die_0 > "$fake/uncore_qpi_0/die1"
echo normal_operation > "$fake/uncore_qpi_0/link/die0"
echo normal_operation > "$fake/uncore_qpi_0/link/die1"
echo event=0x34,umask=0x8 > "$fake/uncore_r3qpi_0/events/vna_credits_reject.drs"
printf 'processor\t: 0\nmodel\t\t: 63\n' > "$fake/cpuinfo"
# CPU N on socket N, read through the fake root (CHECK_ROOT)
for c in 0 1; do
	mkdir -p "$tmp/fake/sys/devices/system/cpu/cpu$c/topology"
	echo $c > "$tmp/fake/sys/devices/system/cpu/cpu$c/topology/physical_package_id"
done
# started as root, qpistat serves as 65534, reading link_speed
chmod a+x "$tmp"
chmod -R a+rX "$tmp/fake"
(cd tools/qpistat && ${CC:-cc} -O1 -DQPISTAT_FAKE_PMU -DPMU_DIR="\"$fake\"" \
	-DCPUINFO="\"$fake/cpuinfo\"" -DCHECK_ROOT="\"$tmp/fake\"" -o "$tmp/qpistat_hsx" \
	$(make -s --no-print-directory print-src) -lm) > "$tmp/hsx.log" 2>&1 &&
	{ "$tmp/qpistat_hsx" --listen "127.0.0.1:$fport" >> "$tmp/hsx.log" 2>&1 & }
hsx_pid=$!

# Prometheus on loopback, scraping every second, with the fleet rules.
cp tools/prometheus/qpi.rules.yml "$tmp/"
cat > "$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:
  - qpi.rules.yml
scrape_configs:
  - job_name: qpistat
    static_configs:
      - targets: ['127.0.0.1:$hport']
  - job_name: node
    static_configs:
      - targets: ['127.0.0.1:$nport']
  - job_name: qpistat_hsx
    static_configs:
      - targets: ['127.0.0.1:$fport']
EOF
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
	--web.listen-address="127.0.0.1:$pport" --log.level=warn > "$tmp/prometheus.log" 2>&1 &
prom_pid=$!

# ctl WORD: tell the guest (port 9101 of the guest, $cport here)
ctl() {
	python3 - "$cport" "$1" <<'EOF'
import socket, sys, time
for _ in range(50):
    try:
        s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
        s.sendall(sys.argv[2].encode() + b"\n")
        s.close()
        break
    except OSError:
        time.sleep(0.2)
EOF
}

# query PROMQL [TIME]: the first value of an instant query, or "none"
query() {
	local args=(--data-urlencode "query=$1")
	[[ -z ${2:-} ]] || args+=(--data-urlencode "time=$2")
	curl -sf "$api/query" "${args[@]}" | python3 -c '
import json, sys
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if r else "none")' 2> /dev/null || echo none
}

# wait_for SECONDS CMD...: until CMD succeeds
wait_for() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[[ $SECONDS -lt $end ]] || return 1
		kill -0 "$vm_pid" 2> /dev/null || return 1
		sleep 1
	done
}

# The guest connects to 10.0.2.2:$aport (QEMU's user network: our
# loopback) the moment its traffic starts: the start on our clock, which
# is also Prometheus's.
ack() { # PORT: the time of the first connection to PORT
	python3 - "$1" <<'EOF'
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(1)
c, _ = s.accept()
print("%.3f" % time.time(), flush=True)
c.recv(64)
c.close()
EOF
}
ack "$aport" > "$tmp/t0" 2> "$tmp/ack.err" &
ack_pid=$!
ack "$a2port" > "$tmp/t0b" 2> "$tmp/ack2.err" &
ack2_pid=$!

mkdir -p "$guestbin"
node_exporter=$(command -v prometheus-node-exporter) && cp "$node_exporter" "$guestbin/"
QPI_VM_BIN=$guestbin setsid tools/vm/run-vm $build --platform snbep --timeout 540 \
	--hostfwd "$hport:9100" --hostfwd "$cport:9101" --hostfwd "$nport:9104" \
	--env QPI_HOSTFWD=1 --env QPI_ACK_PORT="$aport" --env QPI_ACK_PORT2="$a2port" \
	--tests qpistat_exporter.sh > "$tmp/vm.log" 2>&1 &
vm_pid=$!

up() { curl -sf -o /dev/null "$exporter/metrics"; }
wait_for 300 up
result $? "the guest's exporter answers on 127.0.0.1:$hport"

# promtool check metrics on the default answer, and its Content-Type
curl -sf -D "$tmp/headers" "$exporter/metrics" > "$tmp/metrics.txt"
promtool check metrics < "$tmp/metrics.txt" > "$tmp/out" 2>&1
r=$?
ct=$(sed -n 's/^Content-Type: \(.*\)\r$/\1/ip' "$tmp/headers")
[[ $ct == "text/plain; version=0.0.4; charset=utf-8" ]] || { echo "# Content-Type '$ct'"; r=1; }
[[ -s $tmp/metrics.txt ]] || r=1
[[ $r == 0 ]] || diag < "$tmp/out"
result $r "promtool check metrics passes on the exporter's text format ($(grep -c '^# TYPE' "$tmp/metrics.txt") families)"

# OpenMetrics only when asked for
curl -sf -D "$tmp/headers" -H 'Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5' \
	"$exporter/metrics" > "$tmp/metrics.om"
ct=$(sed -n 's/^Content-Type: \(.*\)\r$/\1/ip' "$tmp/headers")
r=0
[[ $ct == "application/openmetrics-text; version=1.0.0; charset=utf-8" ]] || { echo "# Content-Type '$ct'"; r=1; }
[[ $(tail -n 1 "$tmp/metrics.om") == "# EOF" ]] || { echo "# last line not # EOF"; r=1; }
for want in '# TYPE qpi_rx_bytes counter' '# UNIT qpi_rx_bytes bytes' \
	'# TYPE qpi_rx_utilization_ratio gauge' 'qpi_rx_bytes_total{socket="0",port="0"} 0'; do
	grep -qxF "$want" "$tmp/metrics.om" || { echo "# no line '$want' in OpenMetrics"; r=1; }
done
grep -q '^# EOF' "$tmp/metrics.txt" && { echo "# an EOF in the text format"; r=1; }
result $r "OpenMetrics (Content-Type, # UNIT, # EOF) only for Accept: application/openmetrics-text"

# Three good scrapes by Prometheus, then the traffic.
scraped() {
	local v
	v=$(query 'count_over_time(up{job="qpistat"}[5m]) and up{job="qpistat"} == 1')
	[[ $v =~ ^[0-9]+$ ]] && ((v >= 3))
}
wait_for 60 scraped
result $? "Prometheus scrapes the exporter"
ctl inject
# The guest injects DRS packets (8 data flits of 8 B) at a steady rate for
# 20 s: 2000 a second received on socket 0 port 0 (sent by socket 1 port
# 0, its far end), 1000 sent from socket 0 port 0
# (selftests/qpistat_exporter.sh).
secs=20
rx_sel='qpi_rx_bytes_total{job="qpistat",socket="0",port="0"}'
tx_sel='qpi_tx_bytes_total{job="qpistat",socket="0",port="0"}'
rx_rate=$((2000 * 64)) tx_rate=$((1000 * 64))
rx_want=$((rx_rate * secs)) tx_want=$((tx_rate * secs))
started() { [[ -s $tmp/t0 ]]; }
wait_for 60 started
r=$?
t0=$(cat "$tmp/t0")
result $r "the guest's traffic starts (at $t0 on the host's clock)"
arrived() { [[ $(query "$rx_sel") == "$rx_want" && $(query "$tx_sel") == "$tx_want" ]]; }
wait_for 90 arrived
r=$?
[[ $r == 0 ]] || echo "# Prometheus has rx $(query "$rx_sel"), tx $(query "$tx_sel")"
# a few scrapes after the last injection
until python3 -c "import sys, time; sys.exit(time.time() < $t0 + $secs + 4)"; do sleep 1; done
result $r "Prometheus sees the exact totals: rx $rx_want B, tx $tx_want B"

# rate() and increase() over the 10 s from 5 s to 15 s after the start,
# well inside the injection, against the injected rate; and every sample
# scraped 1 s to 19 s after the start against the bytes injected by its
# timestamp.  Tolerance: the bytes of one 1 s scrape interval.  Late,
# bunched or wrong counts miss; totals alone cannot.
check_rate() { # SELECTOR RATE NAME [T0 SAMPLE_TOLERANCE_S]
	local sel=$1 want=$2 name=$3 t0=${4:-$t0} stol=${5:-1} at inc rate
	at=$(python3 -c "print('%.3f' % ($t0 + 15))")
	inc=$(query "increase($sel[10s])" "$at")
	rate=$(query "rate($sel[10s])" "$at")
	curl -sf "$api/query" --data-urlencode "query=$sel[$((secs + 10))s]" \
		--data-urlencode "time=$(python3 -c "print('%.3f' % ($t0 + $secs + 3))")" \
		> "$tmp/samples.json"
	python3 - "$inc" "$rate" "$want" "$t0" "$secs" "$name" "$tmp/samples.json" "$stol" <<'EOF'
import json, sys
inc, rate, want, t0 = (float(x) if x != "none" else float("nan") for x in sys.argv[1:5])
secs, name = int(sys.argv[5]), sys.argv[6]
tol = want * 1.0    # one 1 s scrape interval of traffic
stol = want * float(sys.argv[8])    # a sample's, plus the textfile's age
bad = False
print(f"# {name}: rate() over 10 s at start + 15 s = {rate:.1f} B/s, injected {want:.0f} B/s, "
      f"tolerance {tol / 10:.1f} B/s")
print(f"# {name}: increase over those 10 s = {inc:.1f} B, injected {want * 10:.0f} B, tolerance {tol:.0f} B")
if not abs(rate - want) <= tol / 10 or not abs(inc - want * 10) <= tol:
    bad = True
try:
    v = json.load(open(sys.argv[7]))["data"]["result"][0]["values"]
except (KeyError, IndexError, ValueError):
    v = []
inside = [(t, float(x)) for t, x in v if t0 + 1 <= t <= t0 + secs - 1]
worst = max(inside, key=lambda s: abs(s[1] - want * (s[0] - t0)), default=None)
if worst:
    dev = worst[1] - want * (worst[0] - t0)
    print(f"# {name}: {len(inside)} samples 1-{secs - 1} s after the start; worst at "
          f"+{worst[0] - t0:.3f} s: {worst[1]:.0f} B, injected by then {want * (worst[0] - t0):.0f} B "
          f"({dev:+.0f} B, tolerance {stol:.0f} B)")
if len(inside) < secs - 6:
    print(f"# {name}: {len(inside)} samples inside the injection, want at least {secs - 6}")
    bad = True
elif abs(dev) > stol:
    bad = True
sys.exit(1 if bad else 0)
EOF
}
check_rate "$rx_sel" "$rx_rate" "rx bytes"
result $? "rate() and increase() of received bytes, and every sample, match the injection"
check_rate "$tx_sel" "$tx_rate" "tx bytes"
result $? "rate() and increase() of sent bytes, and every sample, match the injection"

# the recording rules ran on real data
r=0
for rule in qpi:rx_bytes:rate1m qpi:tx_bytes:rate1m qpi:rx_utilization:ratio_rate1m \
	r3qpi:credit_rejects:rate1m r3qpi:credit_rejects:rate5m; do
	[[ $(query "count($rule{job=\"qpistat\"})") == "$(query "count(${rule%%:*}_clockticks_total{job=\"qpistat\"})")" ]] ||
		{ echo "# $rule: $(query "count($rule{job=\"qpistat\"})") series"; r=1; }
done
v=$(query 'max_over_time(qpi:rx_bytes:rate1m{socket="0",port="0"}[5m]) > 0')
[[ $v != none ]] || { echo "# qpi:rx_bytes:rate1m never above 0"; r=1; }
health=$(curl -sf "$api/rules" | python3 -c '
import json, sys
g = json.load(sys.stdin)["data"]["groups"]
print(" ".join(sorted(set(r["health"] for x in g for r in x["rules"]))), sum(len(x["rules"]) for x in g))')
nrules=$(grep -cE '^ +- (record|alert):' tools/prometheus/qpi.rules.yml)
[[ $health == "ok $nrules" ]] || { echo "# rule health: $health, want ok $nrules"; r=1; }
result $r "recording rules: one series per port and link, bandwidth seen, all $nrules rules healthy"

# every panel's query, on the guest's SNB-EP exporter (during its run)
# and the host's HSX one
hsx_up() { [[ $(query 'count_over_time(up{job="qpistat_hsx"}[5m]) and up{job="qpistat_hsx"} == 1') =~ ^([3-9]|[0-9]{2,})$ ]]; }
wait_for 10 hsx_up
r=$?
[[ $r == 0 ]] || { echo "# the host's HSX exporter is not scraped (up $(query 'up{job="qpistat_hsx"}'))"; diag < "$tmp/hsx.log"; }
python3 tools/prometheus/dashboard.py query "$api" "SNB-EP=127.0.0.1:$hport" "HSX=127.0.0.1:$fport" > "$tmp/out" 2>&1 || r=1
cat "$tmp/out"
result $r "qpi-dashboard.json: every panel's and variable's query returns series (SNB-EP guest, HSX on the host) and is valid PromQL"
# done with it: nothing more for this loaded host to run
kill "$hsx_pid" 2> /dev/null
hsx_pid=''

# bad requests, a stalled client and concurrent scrapers
python3 tools/prometheus/probe.py 127.0.0.1 "$hport" bad &
bad_pid=$!
python3 tools/prometheus/probe.py 127.0.0.1 "$hport" slow > "$tmp/slow.out" 2>&1 &
slow_pid=$!
wait "$bad_pid"
result $? "bad requests: 400, 404, 405 with Allow, HEAD and / served, early hang-ups"
python3 tools/prometheus/probe.py 127.0.0.1 "$hport" parallel "$rx_sel" > /dev/null 2>&1
python3 tools/prometheus/probe.py 127.0.0.1 "$hport" parallel \
	"qpi_rx_bytes_total{socket=\"0\",port=\"0\"} $rx_want"
result $? "8 concurrent scrapers x 5: every answer complete and exact"
wait "$slow_pid"
r=$?
cat "$tmp/slow.out"
result $r "a stalled client is dropped at the 2 s request head deadline and pins nothing"

python3 tools/prometheus/probe.py 127.0.0.1 "$hport" cap
result $? "70 stalled clients (64 slots): a scrape pushes out the oldest and is served, all dropped"

curl -sf "$exporter/metrics" > "$tmp/metrics.txt"
promtool check metrics < "$tmp/metrics.txt" > "$tmp/out" 2>&1
r=$?
grep -qxF "qpi_rx_bytes_total{socket=\"0\",port=\"0\"} $rx_want" "$tmp/metrics.txt" || r=1
[[ $r == 0 ]] || diag < "$tmp/out"
result $r "still serves exact, valid metrics afterwards"
upped() { [[ $(query 'up{job="qpistat"}') == 1 ]]; }
wait_for 10 upped
result $? "Prometheus still scrapes it (up == 1)"

ctl done

# ---- node_exporter's textfile collector
n_rx_sel='qpi_rx_bytes_total{job="node",socket="0",port="0"}'
n_tx_sel='qpi_tx_bytes_total{job="node",socket="0",port="0"}'
node_up() { [[ $(query "$n_rx_sel") == 0 && $(query 'up{job="node"}') == 1 ]]; }
wait_for 120 node_up
r=$?
[[ $r == 0 ]] || echo "# node_exporter: up $(query 'up{job="node"}'), rx $(query "$n_rx_sel")"
result $r "Prometheus scrapes node_exporter, whose textfile collector reads qpistat --textfile"
ctl inject2
started2() { [[ -s $tmp/t0b ]]; }
wait_for 60 started2
r=$?
t0b=$(cat "$tmp/t0b")
result $r "the guest's second traffic starts (at $t0b on the host's clock)"
arrived2() { [[ $(query "$n_rx_sel") == "$rx_want" && $(query "$n_tx_sel") == "$tx_want" ]]; }
wait_for 90 arrived2
r=$?
[[ $r == 0 ]] || echo "# Prometheus has rx $(query "$n_rx_sel"), tx $(query "$n_tx_sel") through node_exporter"
until python3 -c "import sys, time; sys.exit(time.time() < $t0b + $secs + 4)"; do sleep 1; done
result $r "through node_exporter, the exact totals since qpistat --textfile started: rx $rx_want B, tx $tx_want B"
# A sample is as old as the file it came from: one file interval (0.5 s)
# on top of the scrape's second, and in this loaded TCG guest the writer
# or node_exporter runs up to a second late (1.9 s of traffic seen once).
check_rate "$n_rx_sel" "$rx_rate" "node rx bytes" "$t0b" 2.5
result $? "node_exporter: rate() and increase() of received bytes, and every sample, match the injection"
check_rate "$n_tx_sel" "$tx_rate" "node tx bytes" "$t0b" 2.5
result $? "node_exporter: rate() and increase() of sent bytes, and every sample, match the injection"
r=0
errs=$(curl -sf "$api/query" --data-urlencode 'query=node_textfile_scrape_error' | python3 -c '
import json, sys
print(" ".join(x["value"][1] for x in json.load(sys.stdin)["data"]["result"]))')
[[ $errs == 0 ]] || { echo "# node_textfile_scrape_error: '$errs'"; r=1; }
curl -sf "http://127.0.0.1:$nport/metrics" > "$tmp/node.txt"
grep -q '^# EOF' "$tmp/node.txt" && r=1
# node_exporter sorts the labels and prints floats
v=$(awk '$1 == "qpi_rx_bytes_total{port=\"0\",socket=\"0\"}" { printf "%.0f", $2 }' "$tmp/node.txt")
[[ $v == "$rx_want" ]] || { echo "# node_exporter's qpi_rx_bytes_total of socket 0 port 0: '$v'"; r=1; }
[[ $r == 0 ]] || grep -E 'textfile|qpi_rx_bytes' "$tmp/node.txt" | diag
result $r "node_textfile_scrape_error 0, node_exporter serves the file's exact samples"
ctl done2
wait "$vm_pid"
vrc=$?
vm_pid=''
kill "$prom_pid"
wait "$prom_pid" 2> /dev/null
kill -0 "$prom_pid" 2> /dev/null && echo "# Prometheus $prom_pid still running"
prom_pid=''
grep -iE 'level=(error|warn)' "$tmp/prometheus.log" | grep -v 'Received SIGTERM' | head -n 5 | diag

# the guest's cases (run_tests.sh prefixes them with "# ")
while read -r line; do
	case $line in
	"# ok "[0-9]*) result 0 "guest: ${line#\# ok [0-9]* }" ;;
	"# not ok "[0-9]*) result 1 "guest: ${line#\# not ok [0-9]* }" ;;
	"ok - kernel log clean") result 0 "guest: kernel log clean" ;;
	"not ok - kernel log clean") result 1 "guest: kernel log clean" ;;
	"# # textfile: "*) ;;
	"# # "*) echo "$line" ;;
	esac
done < "$tmp/vm.log"
# qpistat --prometheus, the textfile collector's input, from the guest
sed -n 's/^# # textfile: //p' "$tmp/vm.log" > "$tmp/textfile.prom"
promtool check metrics < "$tmp/textfile.prom" > "$tmp/out" 2>&1
r=$?
grep -qxF 'qpi_rx_bytes_total{socket="0",port="1"} 6400' "$tmp/textfile.prom" || r=1
[[ $r == 0 ]] || diag < "$tmp/out"
result $r "promtool check metrics passes on qpistat --prometheus ($(grep -c '^# TYPE' "$tmp/textfile.prom") families)"

grep -q '^# ok [0-9]* textfile_ends_cleanly' "$tmp/vm.log" && [[ $vrc == 0 ]] &&
	grep -q '^ok - kernel log clean' "$tmp/vm.log"
result $? "guest test ran to the end, run-vm exit status $vrc"
[[ $vrc == 0 ]] || tail -n 20 "$tmp/vm.log" | diag

echo "1..$n"
exit $rc
