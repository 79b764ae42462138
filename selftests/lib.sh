# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the qpi_uncore selftests (busybox sh compatible).
#
# A test script declares its plan, then runs subtests:
#   ktap_plan 3
#   t_begin name; expect_eq "what" "$got" "$want"; t_end
#   ktap_finish
# Exit codes follow kselftest: 0 pass, 1 fail, 4 skip.

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

HERE=$(cd "$(dirname "$0")" && pwd)
DBG=/sys/kernel/debug/qpisim
MODDIR=${QPI_MODDIR:-/lib/modules/qpi}
QPICFG=$HERE/qpicfg
PLATFORM=${QPI_PLATFORM:-snbep}
NR_SOCKETS=${QPI_SOCKETS:-2}

ksft_n=0
ksft_failed=0
ksft_plan=0
t_name=
t_err=0
t_t0=

ktap_plan()
{
	ksft_plan=$1
	echo "TAP version 13"
	echo "1..$1"
}

t_begin()
{
	t_name=$1
	t_err=0
	read -r t_t0 _ < /proc/uptime
}

# t_took: a case's seconds, for make check's search for what is slow
t_took()
{
	local t1
	[ -n "$t_t0" ] || return 0
	read -r t1 _ < /proc/uptime
	awk -v a="$t_t0" -v b="$t1" -v n="$t_name" \
		'BEGIN { if (b - a >= 2) printf "# case time: %s %.1f s\n", n, b - a }'
}

t_end()
{
	mux_restore
	t_took
	ksft_n=$((ksft_n + 1))
	if [ "$t_err" -eq 0 ]; then
		echo "ok $ksft_n $t_name"
	else
		ksft_failed=$((ksft_failed + 1))
		echo "not ok $ksft_n $t_name"
	fi
}

t_skip()
{
	ksft_n=$((ksft_n + 1))
	echo "ok $ksft_n $1 # SKIP $2"
}

ktap_finish()
{
	if [ "$ksft_n" -ne "$ksft_plan" ]; then
		echo "# planned $ksft_plan tests, ran $ksft_n"
		exit $KSFT_FAIL
	fi
	echo "# totals: pass:$((ksft_n - ksft_failed)) fail:$ksft_failed"
	[ "$ksft_failed" -eq 0 ] && exit $KSFT_PASS
	exit $KSFT_FAIL
}

fail()
{
	echo "# $t_name: $*"
	t_err=1
}

# expect_eq WHAT GOT WANT: exact string comparison
expect_eq()
{
	[ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
}

# expect_num WHAT GOT WANT: numeric comparison (hex or decimal, 64-bit)
expect_num()
{
	if [ -z "$2" ] || [ $(($2)) -ne $(($3)) ]; then
		fail "$1: got '$2', want $(printf '%d (0x%x)' $(($3)) $(($3)))"
	fi
}

# expect_lines TEXT LINE...: each LINE is a whole line of TEXT
expect_lines()
{
	text=$1
	shift
	for want; do
		echo "$text" | grep -qxF -- "$want" || fail "no line '$want'"
	done
}

# expect_ok WHAT CMD...: the command must succeed
expect_ok()
{
	what=$1
	shift
	"$@" > /tmp/ksft.out 2>&1 || fail "$what: '$*' failed: $(cat /tmp/ksft.out)"
}

# expect_err WHAT ERRNO-TEXT CMD...: the command must fail, its message
# containing ERRNO-TEXT (e.g. "Invalid argument")
expect_err()
{
	what=$1
	text=$2
	shift 2
	if "$@" > /tmp/ksft.out 2>&1; then
		fail "$what: '$*' succeeded, want failure"
	elif ! grep -q "$text" /tmp/ksft.out; then
		fail "$what: '$*': $(cat /tmp/ksft.out), want '$text'"
	fi
}

# expect_dmesg WHAT PATTERN: a kernel message since the last dmesg_mark
expect_dmesg()
{
	dmesg_since_mark | grep -q -- "$2" ||
		fail "$1: no kernel message matching '$2'"
}

# Marks are unique per test process: an earlier script's mark must not
# match.
dmesg_seq=0
dmesg_mark()
{
	dmesg_seq=$((dmesg_seq + 1))
	echo "QPITEST-MARK-$$-$dmesg_seq" > /dev/kmsg
}

# The kernel log since the last dmesg_mark
dmesg_since_mark()
{
	dmesg | sed -n "/QPITEST-MARK-$$-$dmesg_seq\$/,\$p"
}

# ---- qpisim ----

qpisim_unload()
{
	grep -q '^qpisim ' /proc/modules && rmmod qpisim
	return 0
}

# qpisim_load [param=value ...]: (re)load the model; platform defaults to
# the VM's platform unless a platform= parameter is given.
qpisim_load()
{
	qpisim_unload
	case " $* " in
	*" platform="*) insmod "$MODDIR/qpisim.ko" "$@" ;;
	*) insmod "$MODDIR/qpisim.ko" platform="$PLATFORM" "$@" ;;
	esac
}

# bdf SOCKET SLOT FUNC: PCI address of a function of a simulated socket
bdf()
{
	printf '0000:%02x:%02x.%x' "$(cat "$DBG/socket$1/bus")" "$2" "$3"
}

cfg_rd() { "$QPICFG" "$1" rd "$2"; }
cfg_rd64() { "$QPICFG" "$1" rd64 "$2"; }
cfg_wr() { "$QPICFG" "$1" wr "$2" "$3"; }
cfg_wr64() { "$QPICFG" "$1" wr64 "$2" "$3"; }

inject()
{
	echo "$*" > "$DBG/inject"
}

# Register offsets (include/qpi_uncore_regs.h)
CTR0=0xa0
CTL0=0xd8
BOX_CTL=0xf4
BOX_STATUS=0xf8
ctr() { echo $((0xa0 + 8 * $1)); }
ctl() { echo $((0xd8 + 4 * $1)); }
EN=$((1 << 22))
EXT=$((1 << 21))
INV=$((1 << 23))
EDGE=$((1 << 18))
OV_EN=$((1 << 20))
RST=$((1 << 17))
FRZ=$((1 << 8))
FRZ_EN=$((1 << 16))
RST_CTRL=1
RST_CTRS=2
um() { echo $(($1 << 8)); }
th() { echo $(($1 << 24)); }

# Slots of the PMON functions per platform: qpi_slot PORT, r3_slot LINK
qpi_bdf() # SOCKET PORT
{
	case "$2" in
	0) bdf "$1" 8 2 ;;
	1) bdf "$1" 9 2 ;;
	2) case "$QSIM_PLAT" in
	   ivbep) bdf "$1" 0x18 2 ;;
	   *) bdf "$1" 0xa 2 ;;
	   esac ;;
	esac
}

mm_bdf() # SOCKET PORT
{
	case "$2" in
	0) bdf "$1" 8 6 ;;
	1) bdf "$1" 9 6 ;;
	2) bdf "$1" 0xa 6 ;;
	esac
}

r3_bdf() # SOCKET LINK
{
	case "$QSIM_PLAT" in
	snbep | ivbep)
		case "$2" in
		0) bdf "$1" 0x13 5 ;;
		1) bdf "$1" 0x13 6 ;;
		2) bdf "$1" 0x12 5 ;;
		esac ;;
	*)
		case "$2" in
		0) bdf "$1" 0xb 1 ;;
		1) bdf "$1" 0xb 2 ;;
		2) bdf "$1" 0xb 5 ;;
		esac ;;
	esac
}

# Load with an explicit platform and remember it for the *_bdf helpers.
qsim()
{
	QSIM_PLAT=$1
	shift
	qpisim_load platform="$QSIM_PLAT" "$@"
}

# ---- qpi_uncore ----

qpiu_load()
{
	grep -q '^qpi_uncore ' /proc/modules || insmod "$MODDIR/qpi_uncore.ko" "$@"
}

qpiu_unload()
{
	grep -q '^qpi_uncore ' /proc/modules && rmmod qpi_uncore
	return 0
}

# intel_load: Debian's intel_uncore (the guest's /lib/modules/stock), in
# its load order, each module once; intel_unload: and away again
intel_load()
{
	for m in $(cat /lib/modules/stock/load-order); do
		grep -q "^${m%.ko} " /proc/modules && continue
		insmod "/lib/modules/stock/$m" || fail "cannot load stock $m"
	done
}

intel_unload() { grep -q '^intel_uncore ' /proc/modules && rmmod intel_uncore; return 0; }

# sfield NAME FIELD: a field of the last of qpiperf's "NAME samples=..."
# lines in $QOUT
sfield()
{
	echo "$QOUT" | awk -v n="$1" -v f="$2" '$1 == n && $2 ~ /^samples=/ {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == f) v = kv[2] } }
		END { print v }'
}

# wait_text COND: shell text that waits until COND holds, polled every
# 50 ms (a guard of 30 s against a hang, not a measurement: it then
# prints "sh error: timeout: COND")
wait_text() { echo "i=0; until $1; do [ \$i -ge 600 ] && { echo 'sh error: timeout: $1'; break; }; i=\$((i + 1)); sleep 0.05; done"; }

# wait_for COND: the same as a "sh" line for qpiperf
wait_for() { echo "sh $(wait_text "$1")"; }

# qperf: run qpiperf on the script given on stdin; output in $QOUT
qperf()
{
	QOUT=$("$HERE/qpiperf")
	echo "$QOUT" | grep -E '^\?|inject error|sh error' | sed 's/^/# qpiperf: /'
}

# val NAME: the count qpiperf read for NAME; err NAME: its open errno
val() { echo "$QOUT" | awk -v n="$1" '$1 == n { sub("value=", "", $2); print $2 }' | tail -n 1; }
# ran NAME: the ns NAME counted (time running) by its last read
ran() { echo "$QOUT" | awk -v n="$1" '$1 == n && $4 ~ /^running=/ { sub("running=", "", $4); print $4 }' | tail -n 1; }
err() { echo "$QOUT" | awk -v n="$1" '$1 == n && $2 ~ /^error=/ { sub("error=", "", $2); print $2 }'; }
opened() { echo "$QOUT" | awk -v n="$1" '$1 == n && $2 == "ok" { print "yes" }'; }

EINVAL=22
ENODEV=19
EOPNOTSUPP=95
ENOENT=2
PMUS=/sys/bus/event_source/devices

# cpulist LIST: "0-2,5" as "0,1,2,5"
cpulist()
{
	echo "$1" | awk -F, '{ s = ""; for (i = 1; i <= NF; i++) {
		n = split($i, r, "-"); hi = (n == 2) ? r[2] : r[1];
		for (c = r[1]; c <= hi; c++) s = s (s == "" ? "" : ",") c }
		print s }'
}

# nr_aliases PMU: event aliases, without their .scale and .unit files
nr_aliases()
{
	ls "$PMUS/$1/events" | grep -cvE '\.(scale|unit)$'
}

# socket_cpus S: the CPUs of socket S, in order, space separated
socket_cpus()
{
	grep -lx "$1" /sys/devices/system/cpu/cpu[0-9]*/topology/physical_package_id |
		sed 's|.*/cpu\([0-9]*\)/.*|\1|' | sort -n | paste -sd' ' -
}

# every_box LABEL: clockticks on every port and link (three each) of every
# socket, each with its own count, read back exactly
every_box()
{
	script=""
	for s in $(seq 0 $((NR_SOCKETS - 1))); do
		for b in 0 1 2; do
			script="$script
open q$s$b uncore_qpi_$b 0x14 socket=$s
open r$s$b uncore_r3qpi_$b 0x01 socket=$s
inject event socket=$s box=qpi$b event=0x14 count=$((7000 * s + 100 * b + 1))
inject event socket=$s box=r3qpi$b event=0x01 count=$((7000 * s + 100 * b + 2))
read q$s$b
read r$s$b"
		done
	done
	qperf <<EOT
$script
EOT
	for s in $(seq 0 $((NR_SOCKETS - 1))); do
		for b in 0 1 2; do
			expect_num "$1 socket $s qpi$b" "$(val "q$s$b")" $((7000 * s + 100 * b + 1))
			expect_num "$1 socket $s r3qpi$b" "$(val "r$s$b")" $((7000 * s + 100 * b + 2))
		done
	done
}


# ---- perf output ----

# socket_reader PMU S: the CPU of PMU's cpumask in socket S (its reader)
socket_reader()
{
	for c in $(cpulist "$(cat "$PMUS/$1/cpumask")" | tr , ' '); do
		if [ "$(cat "/sys/devices/system/cpu/cpu$c/topology/physical_package_id")" = "$2" ]; then
			echo "$c"
			return
		fi
	done
}

# stat_report_field FILE N EVENT [FIRST]: field N of the line of EVENT in
# the output of perf stat report (human format: it has no -x) whose first
# field is FIRST (S0, CPU2, ...), if given; digit grouping commas removed.
stat_report_field()
{
	awk -v f="$2" -v e="$3" -v k="$4" \
		'$NF == e && (k == "" || $1 == k) { gsub(",", "", $f); print $f }' "$1"
}

# perf_dump_stat FILE: "CPU VALUE" per PERF_RECORD_STAT of a perf stat
# record file, the raw counts before any .scale, sorted
perf_dump_stat()
{
	perf report -D -i "$1" 2>/dev/null |
		awk '/^\.\.\. id [0-9]+, cpu/ { gsub(",", ""); cpu = $5; next }
		     /^\.\.\. value / && cpu != "" { gsub(",", ""); print cpu, $3; cpu = "" }' |
		sort
}

# perf_dump_group_reads FILE: "CPU LEADER-ID VALUE" per sample of a perf
# record file with sample-read groups ({leader,member}:S): the value of the
# group's second event when the leader sampled, in decimal
perf_dump_group_reads()
{
	perf report -D -i "$1" 2>/dev/null |
		awk 'function hex(s,  i, n) { n = 0; s = tolower(s)
			for (i = 1; i <= length(s); i++)
				n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return n }
		     /PERF_RECORD_SAMPLE/ { cpu = $1; n = 0; next }
		     /^\.\.\.\.\. id / && cpu != "" {
			id = $3; v = $5; sub(",", "", id); sub(",", "", v)
			if (++n == 1) lid = id
			else if (n == 2) printf "%s %s %.0f\n", cpu, lid, hex(v)
		     }'
}

# ---- perf's sampling limits ----

PERF_RATE=/proc/sys/kernel/perf_event_max_sample_rate
PERF_PCT=/proc/sys/kernel/perf_cpu_time_max_percent

# perf_limits_pin RATE: perf's sample rate limit (RATE / HZ samples an event
# may write per tick before perf throttles it) set to RATE and kept there:
# perf lowers it whenever its NMI handler runs long
# (perf_sample_event_took()), unless perf_cpu_time_max_percent is 0.  perf
# refuses a new rate while the percent is 0 or 100, hence the order.
# perf_limits_restore puts both back.
perf_limits_pin()
{
	old_perf_pct=$(cat $PERF_PCT)
	old_perf_rate=$(cat $PERF_RATE)
	echo 25 > $PERF_PCT && echo "$1" > $PERF_RATE && echo 0 > $PERF_PCT
}

perf_limits_restore()
{
	echo 25 > $PERF_PCT && echo "$old_perf_rate" > $PERF_RATE &&
		echo "$old_perf_pct" > $PERF_PCT
}

# ---- perf's rotation interval ----

# mux_interval MS PMU...: each PMU's perf_event_mux_interval_ms (how often
# perf rotates the events that do not all fit its counters) set to MS.
# The values found are kept, the first one of each PMU, and mux_restore
# puts them back; t_end calls it, so a case ends with the intervals it
# found.  A case that needs them back before its end calls it itself
# (and so does a subshell, whose changes of mux_saved t_end never sees).
mux_saved=
mux_interval()
{
	mux_ms=$1
	shift
	for mux_pmu; do
		mux_f=$PMUS/$mux_pmu/perf_event_mux_interval_ms
		case " $mux_saved " in
		*" $mux_f="*) ;;
		*) mux_saved="$mux_saved $mux_f=$(cat "$mux_f")" ;;
		esac
		echo "$mux_ms" > "$mux_f"
	done
}

# mux_restore: the intervals mux_interval changed, back as they were; not
# for a PMU that is gone (its successor starts with the default)
mux_restore()
{
	for mux_kv in $mux_saved; do
		[ ! -e "${mux_kv%=*}" ] || echo "${mux_kv##*=}" > "${mux_kv%=*}"
	done
	mux_saved=
}
