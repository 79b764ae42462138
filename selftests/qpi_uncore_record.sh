#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The perf recording workflows a counting-only PMU supports, with exact
# values:
#  A. perf stat record -a -o FILE, then perf stat report -i FILE
#     (aggregated, --per-socket, -A) and the raw PERF_RECORD_STAT counts;
#  B. sample read: perf record -C <cpumask> -e '{cpu-clock,uncore...}:S',
#     the uncore member's value in every sample (perf script's deltas and
#     the raw values of perf report -D);
#  and the rule that makes B need -C: a group member must be on its
#  leader's CPU.  perf record -a pairs the member on the second reader CPU
#  with the leader on CPU 1 (by index), and the kernel refuses that.
. "$(dirname "$0")/lib.sh"

ktap_plan 6

# A fresh module: its refusal messages have their whole rate-limit budget.
qpiu_unload
expect_ok "load qpisim" qsim "$PLATFORM"
expect_ok "load qpi_uncore" qpiu_load

W=/tmp/qpirec
rm -rf "$W"
mkdir -p "$W"
QPI=uncore_qpi_0/rxl_flits_g0.data/
R3=uncore_r3qpi_0/clockticks/
reader() { socket_reader uncore_qpi_0 "$1"; }

t_begin "group_member_on_leader_cpu_only"
r1=$(reader 1)
readers=",$(cpulist "$(cat "$PMUS/uncore_qpi_0/cpumask")"),"
other=""
for c in $(cpulist "$(cat /sys/devices/system/cpu/online)" | tr , ' '); do
	case "$readers" in
	*",$c,"*) ;;
	*) other=$c; break ;;
	esac
done
dmesg_mark
qperf <<EOT
open l software 0 cpu=$r1
open m uncore_qpi_0 0x14 cpu=$r1 group=l
inject event socket=1 box=qpi0 event=0x14 count=4242
gread l
EOT
expect_eq "cpu-clock leader and member on reader $r1" "$(opened m)" yes
expect_num "member's count in the group read" \
	"$(echo "$QOUT" | awk '$1 == "l[1]" { sub("value=", "", $2); print $2 }')" 4242
if [ -n "$other" ]; then
	# What perf record -a asks for: the member on a reader, its leader on
	# another CPU.  event_init accepts the reader (no message); the
	# group check of perf_event_open refuses.
	qperf <<EOT
open l software 0 cpu=$other
open m uncore_qpi_0 0x14 cpu=$r1 group=l
EOT
	expect_eq "leader on CPU $other, member on reader $r1" "$(err m)" $EINVAL
	dmesg_since_mark | grep -q "qpi_uncore: uncore_qpi_0:" &&
		fail "event_init refused the member on reader $r1: $(dmesg_since_mark | grep qpi_uncore)"
	# Both on a CPU outside cpumask (perf record -C <all CPUs>): event_init
	# moves the member to its socket's reader, as intel_uncore does, so
	# perf_event_open refuses the group across two CPUs, silently.
	qperf <<EOT
open l software 0 cpu=$other
open m uncore_qpi_0 0x14 cpu=$other group=l
EOT
	expect_eq "leader and member on CPU $other" "$(err m)" $EINVAL
	dmesg_since_mark | grep -q "qpi_uncore: uncore_qpi_0:" &&
		fail "a message for the group across CPUs: $(dmesg_since_mark | grep qpi_uncore)"
else
	echo "# every CPU is a reader: no CPU outside cpumask to try"
fi
t_end

# Workflow A.  Per socket S: 10 * (S + 1) 64-byte DRS packets received on
# QPI port 0 (8 data flits each; the alias reads 8 bytes per flit) and
# 1000 * S + 777 R3QPI link 0 clockticks; port 1 and link 1 traffic must
# not show.  One write: one batch.
flits() { echo $((80 * ($1 + 1))); }
r3ticks() { echo $((1000 * $1 + 777)); }
flits_sum=0
r3_sum=0
for s in $(seq 0 $((NR_SOCKETS - 1))); do
	cat <<EOT
packet socket=$s port=0 dir=rx mc=drs count=$((10 * (s + 1)))
event socket=$s box=r3qpi0 event=0x01 count=$(r3ticks "$s")
packet socket=$s port=1 dir=rx mc=drs count=50
event socket=$s box=r3qpi1 event=0x01 count=999
EOT
	flits_sum=$((flits_sum + $(flits "$s")))
	r3_sum=$((r3_sum + $(r3ticks "$s")))
done > "$W/inject.A"

t_begin "stat_record_report_aggregate"
perf stat record -a -e "$QPI,$R3" -o "$W/stat.data" -- \
	sh -c "cat $W/inject.A > $DBG/inject" > "$W/record.out" 2>&1 ||
	fail "perf stat record failed: $(cat "$W/record.out")"
# perf stat report prints to stderr
perf stat report -i "$W/stat.data" > "$W/report" 2>&1 ||
	fail "perf stat report failed: $(cat "$W/report")"
expect_num "$QPI bytes" "$(stat_report_field "$W/report" 1 "$QPI")" $((8 * flits_sum))
expect_eq "$QPI unit" "$(stat_report_field "$W/report" 2 "$QPI")" Bytes
expect_num "$R3" "$(stat_report_field "$W/report" 1 "$R3")" $r3_sum
t_end

t_begin "stat_report_per_socket"
perf stat report -i "$W/stat.data" --per-socket > "$W/report" 2>&1 ||
	fail "perf stat report --per-socket failed: $(cat "$W/report")"
for s in $(seq 0 $((NR_SOCKETS - 1))); do
	expect_num "S$s CPUs aggregated" "$(stat_report_field "$W/report" 2 "$QPI" "S$s")" 1
	expect_num "S$s $QPI bytes" "$(stat_report_field "$W/report" 3 "$QPI" "S$s")" \
		$((8 * $(flits "$s")))
	expect_num "S$s $R3" "$(stat_report_field "$W/report" 3 "$R3" "S$s")" "$(r3ticks "$s")"
done
t_end

t_begin "stat_report_per_cpu_and_raw_counts"
perf stat report -i "$W/stat.data" -A > "$W/report" 2>&1 ||
	fail "perf stat report -A failed: $(cat "$W/report")"
expect_num "lines of $QPI: one per reader" \
	"$(awk -v e="$QPI" '$NF == e' "$W/report" | wc -l)" "$NR_SOCKETS"
want=$(for s in $(seq 0 $((NR_SOCKETS - 1))); do
	c=$(reader "$s")
	echo "$c $(flits "$s")"
	echo "$c $(r3ticks "$s")"
done | sort | paste -sd' ' -)
for s in $(seq 0 $((NR_SOCKETS - 1))); do
	c=$(reader "$s")
	expect_num "CPU$c $QPI bytes" "$(stat_report_field "$W/report" 2 "$QPI" "CPU$c")" \
		$((8 * $(flits "$s")))
	expect_num "CPU$c $R3" "$(stat_report_field "$W/report" 2 "$R3" "CPU$c")" \
		"$(r3ticks "$s")"
done
# the counts as recorded: flits, before the alias's .scale
expect_eq "PERF_RECORD_STAT (cpu count)" \
	"$(perf_dump_stat "$W/stat.data" | paste -sd' ' -)" "$want"
t_end

# Workflow B.  Three batches of clockticks per socket on QPI port 0 and
# R3QPI link 0 (+ 5 each), 0.3 s apart, with cpu-clock samples every
# 10 ms in between: each batch is one step of the member's value in the
# samples of its socket's reader.  Port 1 traffic must not show.
step() { echo $((1000 * (100 * $2 + 10 * $1 + 1) + 7 * $2)); } # SOCKET BATCH
wl=""
for i in 1 2 3; do
	for s in $(seq 0 $((NR_SOCKETS - 1))); do
		cat <<EOT
event socket=$s box=qpi0 event=0x14 count=$(step "$s" "$i")
event socket=$s box=r3qpi0 event=0x01 count=$(($(step "$s" "$i") + 5))
event socket=$s box=qpi1 event=0x14 count=333
EOT
	done > "$W/inject.B$i"
	wl="$wl cat $W/inject.B$i > $DBG/inject; sleep 0.3;"
done

t_begin "record_sample_read_deltas"
perf record -C "$(cat "$PMUS/uncore_qpi_0/cpumask")" -c 10000000 -o "$W/rec.data" \
	-e '{cpu-clock,uncore_qpi_0/clockticks/}:S' \
	-e '{cpu-clock,uncore_r3qpi_0/clockticks/}:S' -- sh -c "$wl" \
	> "$W/record.out" 2>&1 ||
	fail "perf record failed: $(cat "$W/record.out")"
# perf script splits each group read into one sample per member whose
# period is the change of the member's value since its previous sample on
# that CPU (changes of 0 are left out).
perf script -i "$W/rec.data" -F cpu,period,event > "$W/script" 2>&1 ||
	fail "perf script failed: $(head -n 5 "$W/script")"
for s in $(seq 0 $((NR_SOCKETS - 1))); do
	c=$(printf '[%03d]' "$(reader "$s")")
	for ev in uncore_qpi_0/clockticks/ uncore_r3qpi_0/clockticks/; do
		got=$(awk -v c="$c" -v e="$ev:" '$1 == c && $3 == e { print $2 }' \
			"$W/script" | paste -sd' ' -)
		want=""
		for i in 1 2 3; do
			v=$(step "$s" "$i")
			[ "$ev" = uncore_r3qpi_0/clockticks/ ] && v=$((v + 5))
			want="$want${want:+ }$v"
		done
		expect_eq "socket $s $c $ev steps" "$got" "$want"
	done
done
echo "# $(awk '$3 == "cpu-clock:"' "$W/script" | wc -l) cpu-clock samples"
t_end

t_begin "record_sample_read_values"
perf_dump_group_reads "$W/rec.data" > "$W/values"
for s in $(seq 0 $((NR_SOCKETS - 1))); do
	c=$(reader "$s")
	t1=$(step "$s" 1)
	t2=$((t1 + $(step "$s" 2)))
	t3=$((t2 + $(step "$s" 3)))
	leaders=$(awk -v c="$c" '$1 == c { print $2 }' "$W/values" | sort -u)
	expect_num "CPU$c groups" "$(echo "$leaders" | wc -w)" 2
	# per group, the values its member took in sample order, without
	# repeats and the 0 before the first batch; and its last value
	got=$(for l in $leaders; do
		awk -v c="$c" -v l="$l" '$1 == c && $2 == l && $3 != 0 { print $3 }' \
			"$W/values" | uniq | paste -sd' ' -
	done | sort | paste -sd/ -)
	want=$(printf '%s\n' "$t1 $t2 $t3" "$((t1 + 5)) $((t2 + 10)) $((t3 + 15))" |
		sort | paste -sd/ -)
	expect_eq "CPU$c member values" "$got" "$want"
	last=$(for l in $leaders; do
		awk -v c="$c" -v l="$l" '$1 == c && $2 == l { v = $3 } END { print v }' \
			"$W/values"
	done | sort -n | paste -sd' ' -)
	expect_eq "CPU$c last samples (totals)" "$last" "$t3 $((t3 + 15))"
done
t_end

rm -rf "$W"
qpiu_unload
qpisim_unload
ktap_finish
