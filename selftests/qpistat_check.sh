#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# qpistat --check against qpisim's faults: the verdict of every check and
# the exit status on a healthy machine, with the PMON functions hidden,
# counters that ignore writes, a foreign writer, a link down, two ends of a
# link that disagree, a CPU without QPI, intel_uncore bound and the module
# missing; a foreign writer the driver caught before the check; and its
# usage errors.
. "$(dirname "$0")/lib.sh"

ktap_plan 14

QPISTAT=/tools/bin/qpistat
[ -x "$QPISTAT" ] || QPISTAT=$HERE/../tools/qpistat/qpistat
P=/tmp/qpick
mkdir -p $P

trap 'umount /proc/cpuinfo 2> /dev/null
      grep -q "^intel_uncore " /proc/modules && rmmod intel_uncore' EXIT

# The rates are compared with a 10 % tolerance: counting for 1 s, a vCPU
# stall would have to last 100 ms between perf's clock and the register read
# to matter (the default 200 ms window is for people, not for a loaded host).
W="--window 1000"

# check [ARGS]: run qpistat --check; output in $P/out, exit status in RC
check()
{
	# shellcheck disable=SC2086
	"$QPISTAT" --check $W "$@" > $P/out 2> $P/err
	RC=$?
	sed 's/^/# /' $P/out
}

# line NAME: the line of check NAME; st NAME: its status
line() { awk -v n="$1" '$2 == n' $P/out; }
st() { line "$1" | cut -d' ' -f1; }

# expect_line NAME STATUS TEXT: check NAME has STATUS and says TEXT
expect_line()
{
	expect_eq "$1 status" "$(st "$1")" "$2"
	line "$1" | grep -qF -- "$3" || fail "$1 does not say '$3': $(line "$1")"
}

# fake_model M: this guest's /proc/cpuinfo with CPU model M, in $P/cpuinfo
fake_model()
{
	awk -v m="$1" '/^model[ \t]*:/ { print "model\t\t: " m; next } { print }' \
		/proc/cpuinfo > $P/cpuinfo
}

# healthy [PARAMS]: qpisim with the link clock, qpi_uncore; no intel_uncore
healthy()
{
	qpiu_unload
	intel_unload
	expect_ok "load qpisim" qsim "$PLATFORM" link_clock=1 "$@"
	expect_ok "load qpi_uncore" qpiu_load
}

cpu_want=pass
grep -qw hypervisor /proc/cpuinfo && cpu_want=warn
# the functions a socket of this platform has: the per-platform IDs
case $PLATFORM in
snbep) QPI0=0x3c41 QPI1=0x3c42 MM0=0x3c86 R30=0x3c44 NAME=SNB-EP ;;
ivbep) QPI0=0x0e32 QPI1=0x0e33 MM0=0x0e86 R30=0x0e36 NAME=IVB-EP ;;
hswep) QPI0=0x2f32 QPI1=0x2f33 MM0=0x2f86 R30=0x2f36 NAME=HSX ;;
bdx) QPI0=0x6f32 QPI1=0x6f33 MM0=0x6f86 R30=0x6f36 NAME=BDX ;;
*) NAME=none ;;
esac

if [ "$NAME" = none ]; then
	# a guest CPU without QPI (run-vm --platform icx): the real verdict
	t_begin "real_cpu_without_qpi"
	check
	expect_num "exit" "$RC" 1
	expect_line cpu fail "Skylake-SP or later, which has UPI, not QPI"
	expect_line cpu fail "uncore_upi_0"
	expect_line pci skip "no QPI platform"
	# nothing to load here: no modprobe anywhere
	expect_line module skip "qpi_uncore is not loaded, and has nothing to drive here (see cpu)"
	grep -q modprobe $P/out && fail "a CPU without QPI is told to modprobe: $(cat $P/out)"
	# qpistat itself: the cpu verdict, not the drivers' advice
	"$QPISTAT" -c 1 > $P/out 2> $P/err
	expect_num "qpistat's exit without PMUs" $? 69
	expect_eq "qpistat's reason" "$(sed -n 2p $P/err)" \
		"  This CPU has no QPI PMON that qpistat reads (the cpu check of qpistat --check):"
	grep -q modprobe $P/err && fail "qpistat tells a CPU without QPI to modprobe: $(cat $P/err)"
	t_end
	for t in healthy_machine_passes_every_check json_is_one_document \
		 hidden_functions counters_ignore_writes foreign_writer \
		 foreign_writer_caught_before_the_check \
		 other_perf_events_are_not_foreign link_down ends_disagree \
		 cpu_without_qpi \
		 intel_uncore_bound module_missing \
		 not_root_says_what_it_could_not_see; do
		t_skip "$t" "the guest CPU has no QPI"
	done
	ktap_finish
fi

t_begin "healthy_machine_passes_every_check"
healthy
B0=$(printf %02x "$(cat "$DBG/socket0/bus")")
B1=$(printf %02x "$(cat "$DBG/socket1/bus")")
check
expect_num "exit" "$RC" 0
expect_line cpu "$cpu_want" "family 6 model"
expect_line cpu "$cpu_want" ": $NAME,"
expect_line pci pass "socket 0 bus $B0: QPI port 0,1 QPI mask/match 0,1 R3QPI link 0,1; socket 1 bus $B1: QPI port 0,1 QPI mask/match 0,1 R3QPI link 0,1"
expect_line binding pass "12 functions: qpi_uncore 12, intel_uncore 0, nobody 0"
expect_line module pass "qpi_uncore loaded"
expect_line module pass "4 QPI/R3QPI PMUs (2 QPI ports with link_speed); sampling route $(cat /sys/module/qpi_uncore/parameters/sample_route)"
line module | grep -q inferred && fail "the route is the module's own, not inferred: $(line module)"
expect_line link pass "socket 0 port 0: up, 8.0 GT/s; socket 0 port 1: up, 8.0 GT/s; socket 1 port 0: up, 8.0 GT/s; socket 1 port 1: up, 8.0 GT/s"
expect_line counting pass "(8.0 GT/s implies 1000.0 MHz)"
expect_num "ports counted" "$(line counting | grep -o 'GT/s implies' | wc -l)" 4
expect_line foreign pass "8 boxes: the control registers hold what the driver wrote"
expect_eq "summary" "$(tail -n 1 $P/out)" "PASS: 0 fail, 0 warn"
t_end

t_begin "json_is_one_document"
check --json
expect_num "exit" "$RC" 0
expect_num "one line" "$(wc -l < $P/out)" 1
for c in cpu pci binding module link counting foreign; do
	grep -qF "{\"check\": \"$c\", \"status\": \"" $P/out || fail "no $c in $(cat $P/out)"
done
grep -qF '"check": "link", "status": "pass", "saw": "socket 0 port 0: up, 8.0 GT/s;' $P/out ||
	fail "link: $(cat $P/out)"
grep -qF '], "fail": 0, "warn": 0, "exit": 0}' $P/out || fail "summary: $(cat $P/out)"
t_end

t_begin "hidden_functions"
healthy hide=pmon
check
expect_num "exit" "$RC" 1
expect_line pci fail "socket 0 bus $B0: no PMON function; socket 1 bus $B1: no PMON function; 12 functions missing"
expect_line pci fail "missing: $B0:$QPI0 (QPI port 0) $B0:$QPI1 (QPI port 1) $B0:$MM0 (QPI mask/match 0)"
expect_line pci fail "$B1:$R30 (R3QPI link 0)"
expect_line pci fail "the firmware hides these PMON functions"
expect_line binding skip "no QPI, R3QPI or mask/match function"
expect_line module fail "registered no PMU: it has no function to drive (see pci)"
t_end

t_begin "counters_ignore_writes"
healthy
for f in "$DBG"/socket*/qpi[0-9] "$DBG"/socket*/r3qpi[0-9]; do
	echo 1 > "$f/ignore_writes"
done
check
expect_num "exit" "$RC" 1
expect_line counting fail "socket 0 port 0: 0 in"
expect_line counting fail "FAIL: zero"
expect_line counting fail "the counters ignore writes"
expect_line foreign fail "socket 0 QPI port 0 ($(qpi_bdf 0 0)): every control register reads 0, 0x400014 was written: the counters ignore writes"
expect_line foreign fail "R3QPI link 1 ($(r3_bdf 1 1)): every control register reads 0, 0x400001 was written"
expect_line foreign fail "firmware locks the PMON registers"
t_end

t_begin "foreign_writer"
healthy
# a tool like PCM reprograms port 1 of socket 1 for Tx flits
echo 0x400200 > "$DBG"/socket1/qpi1/foreign_ctl
check
expect_num "exit" "$RC" 1
expect_line foreign fail "socket 1 QPI port 1 ($(qpi_bdf 1 1)): a control register holds 0x00400200 where the driver wrote 0x400014: something else writes these registers"
expect_line foreign fail "PCM (pcm, pcm-numa, pcm-memory...), likwid in direct access mode (likwid-perfctr -M 1), or a BIOS SMI"
expect_num "one box reported" "$(line foreign | grep -o 'something else' | wc -l)" 1
# the other ports count on
line counting | grep -qF "socket 0 port 0: " || fail "no socket 0 port 0: $(line counting)"
expect_line counting fail "FAIL: zero"
t_end

# A tool that ran while perf counted and is gone by the time of the check:
# the registers are clean now, but the driver's own read-back counted it.
t_begin "foreign_writer_caught_before_the_check"
healthy
qperf <<EOT
open a uncore_qpi_1 0x14 socket=1
sh echo 0x400200 > $DBG/socket1/qpi1/foreign_ctl
sh i=0; until [ \$(cat $PMUS/uncore_qpi_1/foreign_writes) -ge 1 ]; do [ \$i -ge 600 ] && break; i=\$((i + 1)); sleep 0.05; done
sh echo 0 > $DBG/socket1/qpi1/foreign_ctl
EOT
check
expect_num "exit" "$RC" 0
expect_line foreign warn "8 boxes: the control registers hold what the driver wrote; since it loaded, qpi_uncore found another writer 1 time (foreign_writes: uncore_qpi_1 1)"
expect_line foreign warn "=> another tool reprogrammed the counters earlier (dmesg | grep 'another tool' says when and which)"
expect_eq "summary" "$(tail -n 1 $P/out)" "PASS: 0 fail, 1 warn"
t_end

t_begin "other_perf_events_are_not_foreign"
healthy
# four pinned Tx-flit events fill port 0 of socket 0: the check's
# clockticks never get a counter there, and that box holds other values
qperf <<EOT
open a uncore_qpi_0 0x0200 socket=0 pinned
open b uncore_qpi_0 0x0200 socket=0 pinned
open c uncore_qpi_0 0x0200 socket=0 pinned
open d uncore_qpi_0 0x0200 socket=0 pinned
sh $QPISTAT --check $W > $P/out 2> $P/err; echo \$? > $P/rc
EOT
sed 's/^/# /' $P/out
expect_num "exit" "$(cat $P/rc)" 0
expect_line counting warn "socket 0 port 0: never scheduled"
expect_line counting warn "every counter of the box is taken by other perf events"
expect_line foreign pass "7 boxes: the control registers hold what the driver wrote"
t_end

t_begin "link_down"
healthy
echo 1 > "$DBG"/socket0/qpi1_misc/link_down
check
expect_num "exit with one port down" "$RC" 0
expect_line link warn "socket 0 port 1: down (QPI_RATE_STATUS code 0)"
expect_line link warn "fine if it is not connected"
expect_line counting warn "socket 0 port 1: 0 in"
expect_line counting warn "(link down)"
expect_line counting warn "a port whose link is down counts nothing (see link)"
echo 1 > "$DBG"/socket0/qpi0_misc/link_down
check
expect_num "exit with socket 0 cut off" "$RC" 1
expect_line link fail "every port of socket 0 is down although the machine has 2 sockets"
t_end

# A parameter exchange gone wrong at one end (qpisim's "S.P names T.Q"):
# 0.0's parameters name 1.1, whose own name 0.1.  qpi_uncore publishes no
# far end at either end of 0.0's link, and the map check names both.
t_begin "ends_disagree"
healthy
echo "0.0 names 1.1" > "$DBG/links"
check
expect_line map warn "the silicon's (qpi_uncore's uncore_qpi_*/die* files): 0.1=1.1"
expect_line map warn "; socket 0 port 0: in normal operation, no far end (peer_disagrees); socket 1 port 0: in normal operation, no far end (peer_disagrees)"
expect_line map warn "the link layer's parameters of 2 ports in normal operation do not check out"
echo "0.0 names peer" > "$DBG/links"
check
expect_line map pass "the silicon's (qpi_uncore's uncore_qpi_*/die* files): 0.0=1.0, 0.1=1.1"
t_end

t_begin "cpu_without_qpi"
healthy
# Skylake-SP: what /proc/cpuinfo says there
fake_model 85
mount -o bind $P/cpuinfo /proc/cpuinfo || fail "cannot bind mount a cpuinfo"
check
umount /proc/cpuinfo
expect_num "exit" "$RC" 1
expect_line cpu fail "model 85 (0x55) on 2 sockets: Skylake-SP or later, which has UPI, not QPI"
expect_line cpu fail "use intel_uncore's UPI PMUs: perf stat -a -e uncore_upi_0/event=0x1/"
expect_line pci skip "no QPI platform (see cpu)"
fake_model 26
mount -o bind $P/cpuinfo /proc/cpuinfo || fail "cannot bind mount a cpuinfo"
check
umount /proc/cpuinfo
expect_num "exit, Nehalem-EP" "$RC" 1
expect_line cpu fail "model 26 (0x1a) on 2 sockets: no QPI PMON this tool knows"
t_end

t_begin "intel_uncore_bound"
healthy
qpiu_unload
intel_load
check
expect_num "exit" "$RC" 1
expect_line binding fail "12 functions: qpi_uncore 0, intel_uncore 12, nobody 0"
expect_line binding fail "run qpi-uncore-takeover (or blacklist intel_uncore)"
expect_line module fail "qpi_uncore is not loaded; intel_uncore is, with"
intel_unload
t_end

t_begin "module_missing"
healthy
qpiu_unload
check
expect_num "exit" "$RC" 1
expect_line module fail "qpi_uncore is not loaded => modprobe qpi_uncore"
expect_line binding fail "12 functions: qpi_uncore 0, intel_uncore 0, nobody 12 => load the driver: modprobe qpi_uncore"
expect_line counting skip "no uncore_qpi_* PMU (see module)"
expect_line foreign skip "no event counting"
t_end

t_begin "not_root_says_what_it_could_not_see"
healthy
grep -q '^nobody:' /etc/passwd 2>/dev/null || echo 'nobody:x:65534:65534::/:/bin/sh' >> /etc/passwd
old=$(cat /proc/sys/kernel/perf_event_paranoid)
echo -1 > /proc/sys/kernel/perf_event_paranoid
su nobody -s /bin/sh -c "$QPISTAT --check $W" > $P/out 2> $P/err
RC=$?
echo "$old" > /proc/sys/kernel/perf_event_paranoid
sed 's/^/# /' $P/out
expect_num "exit" "$RC" 0
# config space past the header is root's: no rate, no read-back
expect_line link warn "socket 0 port 0: unreadable"
expect_line link warn "run as root to read QPI_RATE_STATUS"
expect_line counting warn "(speed unknown)"
expect_line foreign skip "cannot read config space of $(qpi_bdf 0 0) => run as root"
expect_eq "last line" "$(tail -n 1 $P/out)" "PASS: 0 fail, 2 warn (not root: some checks could not look)"
t_end

t_begin "usage_errors"
check --window 5
expect_num "exit, bad window" "$RC" 2
grep -qF "qpistat: --window '5': want milliseconds, 10-10000" $P/err || fail "message: $(cat $P/err)"
check --bogus
expect_num "exit, unknown option" "$RC" 2
check extra
expect_num "exit, a command" "$RC" 2
grep -qF "qpistat: --check takes no command ('extra')" $P/err || fail "message: $(cat $P/err)"
t_end

qpiu_unload
qpisim_unload
ktap_finish
