#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# qpistat against injected traffic: exact counts and the metric formulas in
# JSON, Prometheus text and table output, link speed from QPI_RATE_STATUS,
# interval mode, qpi_uncore's foreign writer episodes, and the messages for
# missing PMUs and missing permission.
. "$(dirname "$0")/lib.sh"

# Its figures are those of a plan that counts at the receiving end: the
# guest's CPU (run-vm --platform) picks qpistat's plan, qpisim is IVB-EP
# here.  qpistat_plan.sh covers every platform's plan.
case $PLATFORM in
hswep|bdx)
	echo "# qpistat.sh: $PLATFORM counts where flits are sent; see qpistat_plan.sh"
	exit $KSFT_SKIP ;;
esac

ktap_plan 7

QPISTAT=/tools/bin/qpistat
[ -x "$QPISTAT" ] || QPISTAT=$HERE/../tools/qpistat/qpistat

qpiu_unload
expect_ok "load qpisim" qsim ivbep sockets=2 qpi_rate=7
expect_ok "load qpi_uncore" qpiu_load
# Both links out of normal operation: no far end known, so IVB-EP counts
# each direction where it is received, on all four counters, the plan
# these exact figures are of (qpistat_plan.sh covers the far ends known).
printf '0.0 down\n0.1 down\n' > $DBG/links

# socket 1 port 0 sends 1000 DRS to socket 0 port 0 (qpisim's default
# link map), which also receives 500 HOM from nowhere in particular
TRAFFIC="echo 'packet socket=0 port=0 dir=rx mc=hom_req count=500' > $DBG/inject
echo 'packet socket=1 port=0 dir=tx mc=drs count=1000' > $DBG/inject
echo 'event socket=0 box=r3qpi0 event=0x34 umask=0x8 count=50 cycles=1000' > $DBG/inject
echo 'event socket=0 box=r3qpi0 event=0x37 umask=0x1 count=20' > $DBG/inject"

t_begin "json_counts_and_metrics_exact"
out=$("$QPISTAT" --json -- sh -c "$TRAFFIC")
# 1000 DRS (9 flits) and 500 HOM (1 flit) received: 8000 data, 1500
# non-data flits in (9000 + 500) / 2 cycles; utilization 9500 / 9500.
for want in \
	'"port": 0, "link_speed_gts": 9.6, "clockticks": 4750, "rx_data_flits": 8000, "rx_nondata_flits": 1500, "tx_data_flits": 0, "rx_bytes": 64000, "tx_bytes": 0' \
	'"rx_utilization": 1.000000, "rx_protocol_overhead": 0.157895' \
	'"tx_data_flits": 8000, "rx_bytes": 0, "tx_bytes": 64000' \
	'"link": 0, "clockticks": 1020, "vna_credit_rejects": 50, "vn0_credit_rejects": 20, "vna_rejects_per_cycle": 0.049020, "vn0_rejects_per_cycle": 0.019608'; do
	echo "$out" | grep -qF "$want" || fail "no '$want' in: $out"
done
t_end

t_begin "bandwidth_is_bytes_over_time"
echo "$out" | awk '{
	match($0, /"interval_s": [0-9.]+/); t = substr($0, RSTART + 14, RLENGTH - 14)
	match($0, /"rx_bandwidth_bytes_per_s": [0-9.]+/)
	bw = substr($0, RSTART + 28, RLENGTH - 28)
	want = 64000 / t; d = bw - want; if (d < 0) d = -d
	if (t <= 0 || d > want * 1e-6 + 0.001) { print "# bw " bw " want " want; exit 1 } }' ||
	fail "rx bandwidth of port 0 is not 64000 B / interval"
t_end

t_begin "prometheus_text_exposition"
out=$("$QPISTAT" --prometheus -- sh -c "$TRAFFIC")
for want in '# HELP qpi_rx_bytes_total Data bytes received on the QPI port (data flits x 8).' \
	'# TYPE qpi_rx_bytes_total counter' \
	'# TYPE qpi_rx_utilization_ratio gauge' \
	'qpi_rx_bytes_total{socket="0",port="0"} 64000' \
	'qpi_tx_bytes_total{socket="1",port="0"} 64000' \
	'qpi_rx_flits_total{socket="0",port="0"} 9500' \
	'qpi_clockticks_total{socket="1",port="0"} 4500' \
	'qpi_rx_utilization_ratio{socket="0",port="0"} 1.000000' \
	'qpi_rx_protocol_overhead_ratio{socket="0",port="0"} 0.157895' \
	'qpi_link_speed_transfers_per_second{socket="1",port="1"} 9600000000' \
	'r3qpi_clockticks_total{socket="0",link="0"} 1020' \
	'r3qpi_vna_credit_rejects_total{socket="0",link="0"} 50' \
	'r3qpi_vn0_credit_rejects_total{socket="0",link="0"} 20' \
	'qpi_foreign_writes_total{socket="1",port="1"} 0' \
	'r3qpi_foreign_writes_total{socket="0",link="0"} 0' \
	'# TYPE r3qpi_foreign_writes_total counter'; do
	echo "$out" | grep -qxF "$want" || fail "no line '$want'"
done
# classic format: HELP and TYPE under the name the samples carry, no EOF
bad=$(echo "$out" | awk '/^# TYPE / { t[$3] = 1; next } /^# HELP / { h[$3] = 1; next }
	{ n = $0; sub(/[{ ].*/, "", n); if (!t[n] || !h[n]) print n }' | sort -u)
expect_eq "samples without HELP or TYPE" "$bad" ""
# and the two link families (normal operation, the state), no peer
expect_num "families" "$(echo "$out" | grep -c '^# TYPE ')" 14
echo "$out" | grep -q '^# EOF' && fail "an OpenMetrics EOF in the text format"
t_end

t_begin "table_and_link_speed"
expect_eq "sysfs link_speed" "$(cat "$PMUS/uncore_qpi_0/link_speed" | paste -sd' ' -)" "0 9.6 1 9.6"
[ -e "$PMUS/uncore_r3qpi_0/link_speed" ] && fail "R3QPI has a link_speed"
out=$("$QPISTAT" -- sh -c "$TRAFFIC")
echo "$out" | grep -qE '^ +[0-9.]+ +0 +0 +9\.6 +[0-9]+\.[0-9]{3} +0\.000 +[0-9]+ +100\.00% +15\.79%$' ||
	fail "no socket 0 port 0 row: $out"
expect_num "rows per socket: 2 ports + total" "$(echo "$out" | grep -cE '^ +[0-9.]+ +1 +(0|1|all) ')" 3
t_end

t_begin "interval_mode"
expect_num "three JSON intervals" "$("$QPISTAT" --json -I 50 -c 3 | grep -c '^{"time"')" 3
expect_num "two expositions" "$("$QPISTAT" --prometheus -I 50 -c 2 | grep -c '^# TYPE qpi_clockticks_total counter$')" 2
t_end

# The exporter's own groups carry the box's foreign_writes event: another
# tool reprogramming socket 1's port 1 while qpistat counts is exported
# there, and nowhere else.
t_begin "foreign_writes_exported"
FOREIGN="echo 0x400200 > $DBG/socket1/qpi1/foreign_ctl
i=0; until [ \$(cat $PMUS/uncore_qpi_1/foreign_writes) -ge 1 ] || [ \$i -ge 600 ]; do i=\$((i + 1)); sleep 0.05; done
echo 0 > $DBG/socket1/qpi1/foreign_ctl"
expect_lines "$("$QPISTAT" --prometheus -- sh -c "$FOREIGN")" \
	'qpi_foreign_writes_total{socket="1",port="1"} 1' \
	'qpi_foreign_writes_total{socket="0",port="1"} 0' \
	'qpi_foreign_writes_total{socket="1",port="0"} 0' \
	'r3qpi_foreign_writes_total{socket="1",link="1"} 0'
t_end

t_begin "clear_messages"
grep -q '^nobody:' /etc/passwd 2>/dev/null || echo 'nobody:x:65534:65534::/:/bin/sh' >> /etc/passwd
old=$(cat /proc/sys/kernel/perf_event_paranoid)
echo 2 > /proc/sys/kernel/perf_event_paranoid
out=$(su nobody -s /bin/sh -c "$QPISTAT -I 10 -c 1" 2>&1)
rc=$?
echo "$old" > /proc/sys/kernel/perf_event_paranoid
expect_num "exit status without permission (EX_NOPERM)" "$rc" 77
echo "$out" | grep -q "permission denied opening qpi events" || fail "no permission message: $out"
echo "$out" | grep -q "sudo setcap cap_perfmon+ep /" || fail "CAP_PERFMON not offered: $out"
# the sysctl last, with its value and its cost
expect_eq "last remedy" "$(echo "$out" | tail -n 2)" \
"  Last resort: sudo sysctl kernel.perf_event_paranoid=0 (it is 2) lets every user
  watch every CPU's events: it weakens the whole machine, not just qpistat."
expect_ok "unload" qpiu_unload
out=$("$QPISTAT" -I 10 -c 1 2>&1)
rc=$?
expect_num "exit status without PMUs (EX_UNAVAILABLE)" "$rc" 69
echo "$out" | grep -q "no uncore_qpi_\* PMU" || fail "no 'no PMU' message: $out"
echo "$out" | grep -q "Load the driver: modprobe qpi_uncore" || fail "no advice: $out"
t_end

qpisim_unload
ktap_finish
