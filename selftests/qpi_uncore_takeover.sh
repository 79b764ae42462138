#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# qpi_uncore beside intel_uncore: qpi-uncore-takeover hands the QPI, R3QPI
# and mask/match functions over and back, refuses while events are open,
# is idempotent, reports a failed load; and what make install sets up for
# every boot, run for real: systemd-udevd with the shipped rule and kmod's
# modprobe with the shipped softdep, in each load order, after a release
# and at a coldplug.  intel_uncore keeps and can open its other PMUs
# throughout.  First, against a fake sysfs, what the real one cannot
# stage (takeover_fake.sh).
. "$(dirname "$0")/lib.sh"

ktap_plan 21

TOOL=/usr/sbin/qpi-uncore-takeover
QPISTAT=/tools/bin/qpistat
INTEL=${PLATFORM}_uncore
P=/tmp/qpit
LX=/usr/libexec/qpivm
RELEASED=/run/qpi-uncore-released
# the tool honours its QPI_TAKEOVER_* hooks only while this exists
TEST_MODE=/run/qpi-uncore-takeover.test-mode
mkdir -p $P
: > $TEST_MODE
# the functions the tool hands over, from the tool itself
IDS=$(sed -n '/^IDS="/,/"$/p' $TOOL | grep -oE '0x[0-9a-f]{4}' | tr '\n' ' ')

# The guest has no modules.dep: outside the udev tests the tool loads
# modules through this.
cat > $P/modprobe <<EOT
#!/bin/sh
case "\$1" in
intel_uncore) for m in \$(cat /lib/modules/stock/load-order); do insmod /lib/modules/stock/\$m || exit 1; done ;;
qpi_uncore) insmod $MODDIR/qpi_uncore.ko ;;
*) exit 1 ;;
esac
EOT
printf '#!/bin/sh\necho "modprobe: FATAL: Module $1 not found" >&2\nexit 1\n' > $P/modprobe-fail
chmod +x $P/modprobe $P/modprobe-fail
export QPI_TAKEOVER_MODPROBE=$P/modprobe

# kmp: kmod's modprobe over a modules.dep of the stock intel_uncore and
# qpi_uncore, with the shipped modprobe.d file.  The same tree is the
# running kernel's /lib/modules/$kv, where the guest's own modprobe finds
# qpi_uncore (the tool runs it when the test mode is off).
kmp() { $LX/modprobe -d $P/root -C $LX/modprobe.d "$@"; }
kv=$(uname -r)
mkdir -p $P/root/lib/modules/$kv/kernel $P/root/lib/modules/$kv/updates
cp /lib/modules/stock/*.ko $P/root/lib/modules/$kv/kernel/
cp "$MODDIR/qpi_uncore.ko" $P/root/lib/modules/$kv/updates/
for f in modules.order modules.builtin modules.builtin.modinfo; do
	: > $P/root/lib/modules/$kv/$f
done
$LX/depmod -b $P/root "$kv" > $P/depmod.out 2>&1 || echo "depmod failed" >> $P/depmod.out
printf '#!/bin/sh\nexec %s/modprobe -d %s/root -C %s/modprobe.d "$@"\n' $LX $P $LX > $P/kmodprobe
chmod +x $P/kmodprobe
[ -e /lib/modules/$kv ] || ln -s $P/root/lib/modules/$kv /lib/modules/$kv

# Whatever happens, leave no udevd, rule or module behind for later tests.
trap 'udev_stop; rm -f /etc/udev/rules.d/60-qpi-uncore.rules $RELEASED $TEST_MODE
      [ -h /lib/modules/$kv ] && rm /lib/modules/$kv
      grep -q "^qpi_uncore " /proc/modules && rmmod qpi_uncore
      grep -q "^intel_uncore " /proc/modules && rmmod intel_uncore' EXIT

is_fn() { case " $IDS " in *" $(cat "$1/device") "*) return 0 ;; esac; return 1; }

# owners: "driver count" lines for the QPI/R3QPI/mask-match functions
owners()
{
	for d in /sys/bus/pci/devices/*; do
		is_fn "$d" || continue
		if [ -e "$d/driver" ]; then
			basename "$(readlink "$d/driver")"
		else
			echo none
		fi
	done | sort | uniq -c | awk '{ print $2, $1 }' | paste -sd' ' -
}

overrides() { cat /sys/bus/pci/devices/*/driver_override | grep -c qpi_uncore; }

# fresh: no drivers, a new qpisim (whose functions udev sees added if it runs)
fresh()
{
	qpiu_unload
	intel_unload
	qpisim_unload
	expect_ok "load qpisim" qsim "$PLATFORM"
	[ -z "$UDEVD_PID" ] || settle
}

nfn=$(qsim "$PLATFORM" > /dev/null 2>&1; owners | awk '{ print $2 }')

# qpi_and_ubox N: perf stat of a QPI clockticks event and intel_uncore's
# UBox PMU in one run; N clockticks injected.  Sets QCOUNT to what the QPI
# event counted.
qpi_and_ubox()
{
	QCOUNT=none
	perf stat -a -x, -o $P/stat -e uncore_qpi_0/event=0x14/ -e uncore_ubox/event=0x0/ -- \
		sh -c "echo 'event socket=0 box=qpi0 event=0x14 count=$1' > $DBG/inject" \
		> $P/out 2>&1 || { fail "perf stat: $(tail -n 3 $P/out)"; return; }
	grep -q 'uncore_ubox' $P/stat || fail "no UBox line: $(cat $P/stat)"
	grep 'uncore_ubox' $P/stat | grep -qE 'not (supported|counted)' &&
		fail "intel_uncore's UBox event did not count: $(grep ubox $P/stat)"
	QCOUNT=$(grep 'uncore_qpi_0' $P/stat | cut -d, -f1 | grep -E '^[0-9]+$')
	[ -n "$QCOUNT" ] || QCOUNT=none
}

intel_keeps_the_rest()
{
	for p in uncore_ubox uncore_pcu uncore_cbox_0; do
		[ -d "$PMUS/$p" ] || fail "intel_uncore's $p is gone"
	done
}

# --- udev and kmod, as make install sets them up ---------------------------

UDEVD_PID=
udev_start()
{
	mkdir -p /etc/udev/rules.d
	cp $LX/udev/60-qpi-uncore.rules /etc/udev/rules.d/
	SYSTEMD_LOG_TARGET=console SYSTEMD_LOG_LEVEL=info \
		$LX/systemd-udevd --resolve-names=never >> $P/udevd.log 2>&1 &
	UDEVD_PID=$!
	i=0
	until $LX/udevadm control --ping > /dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 100 ] || { fail "udevd did not start: $(tail -n 5 $P/udevd.log)"; return; }
		sleep 0.1
	done
}

udev_stop()
{
	[ -n "$UDEVD_PID" ] || return 0
	$LX/udevadm control --exit > /dev/null 2>&1 || kill "$UDEVD_PID"
	wait "$UDEVD_PID" 2> /dev/null
	UDEVD_PID=
}

settle() { $LX/udevadm settle --timeout=120 || fail "udevadm settle timed out"; }


. "$HERE/takeover_fake.sh"

t_begin "nothing_to_do_without_intel_uncore"
qpiu_unload
intel_unload
expect_ok "load qpisim" qsim "$PLATFORM"
out=$($TOOL 2>&1)
expect_eq "exit" "$?" 0
echo "$out" | grep -q "intel_uncore is not loaded" || fail "message: $out"
expect_eq "owners" "$(owners)" "none $nfn"
expect_eq "no override" "$(overrides)" 0
t_end

t_begin "loads_beside_intel_uncore_and_names_the_tool"
intel_load
dmesg_mark
expect_ok "load qpi_uncore" qpiu_load
expect_dmesg "names the tool" "run: qpi-uncore-takeover"
expect_dmesg "blacklisting stays the alternative" "or blacklist it"
expect_eq "owners" "$(owners)" "$INTEL $nfn"
t_end

t_begin "refused_while_intel_uncore_qpi_events_are_open"
qperf <<EOT
open e uncore_qpi_0 0x14 socket=0
sh $TOOL > $P/t1 2>&1; echo \$? > $P/t1.rc
read e
EOT
expect_eq "exit" "$(cat $P/t1.rc)" 1
grep -q "refused: intel_uncore has 1 references, perf events open on its PMUs" $P/t1 ||
	fail "message: $(cat $P/t1)"
expect_eq "nothing changed" "$(owners)" "$INTEL $nfn"
expect_eq "no override" "$(overrides)" 0
t_end

# The kernel counts open events per module, not per PMU: an event on a PMU
# that stays refuses too (documented).
t_begin "refused_while_any_intel_uncore_event_is_open"
qperf <<EOT
open e uncore_ubox 0x0 socket=0
sh $TOOL > $P/t1b 2>&1; echo \$? > $P/t1b.rc
EOT
expect_eq "exit" "$(cat $P/t1b.rc)" 1
grep -q "refused: intel_uncore has 1 references" $P/t1b || fail "message: $(cat $P/t1b)"
expect_eq "nothing changed" "$(owners)" "$INTEL $nfn"
t_end

# Root without the test bench's file: every QPI_TAKEOVER_* hook is ignored,
# the tool works on the real /sys and /run and loads qpi_uncore with the
# system's modprobe (busybox's here, from /lib/modules/$kv).
t_begin "hooks_ignored_without_test_mode"
qpiu_unload
mkdir -p $P/hook
printf '#!/bin/sh\n: > %s/hook-ran\nexit 1\n' $P > $P/hook/modprobe
chmod +x $P/hook/modprobe
rm -f $TEST_MODE $P/hook-ran $P/hook-trace
QPI_TAKEOVER_SYSFS=$P/hook QPI_TAKEOVER_RUNDIR=$P/hook QPI_TAKEOVER_MODPROBE=$P/hook/modprobe \
	QPI_TAKEOVER_TRACE=$P/hook-trace QPI_TAKEOVER_LOCKED=1 $TOOL > $P/h1 2>&1
expect_eq "exit" "$?" 0
: > $TEST_MODE
grep -q "qpi_uncore now drives the $nfn" $P/h1 || fail "message: $(cat $P/h1)"
expect_eq "owners" "$(owners)" "qpi_uncore $nfn"
[ -e $P/hook-ran ] && fail "QPI_TAKEOVER_MODPROBE ran"
[ -e $P/hook-trace ] && fail "QPI_TAKEOVER_TRACE written: $(cat $P/hook-trace)"
[ -e $P/hook/qpi-uncore-takeover.lock ] && fail "lock taken in QPI_TAKEOVER_RUNDIR"
# back to intel_uncore for the next case (which hands over by hand again)
$TOOL --release > $P/h2 2>&1 || fail "release: $(cat $P/h2)"
expect_eq "released" "$(owners)" "$INTEL $nfn"
t_end

t_begin "takeover_keeps_intel_uncore_other_pmus"
$TOOL > $P/t2 2>&1 || fail "takeover failed: $(cat $P/t2)"
grep -q "qpi_uncore now drives the $nfn" $P/t2 || fail "message: $(cat $P/t2)"
expect_eq "owners" "$(owners)" "qpi_uncore $nfn"
[ -e "$PMUS/uncore_qpi_0/link_speed" ] || fail "uncore_qpi_0 is not qpi_uncore's"
intel_keeps_the_rest
qpi_and_ubox 7654321
expect_num "qpi_uncore counts exactly beside intel_uncore's UBox" "$QCOUNT" 7654321
t_end

t_begin "takeover_twice_changes_nothing"
$TOOL > $P/t3 2>&1 || fail "second run failed: $(cat $P/t3)"
grep -q "already done" $P/t3 || fail "message: $(cat $P/t3)"
expect_eq "owners" "$(owners)" "qpi_uncore $nfn"
# what udev runs once per function: the later runs exit before the lock
: > $P/trace
for i in 1 2 3 4 5; do
	QPI_TAKEOVER_TRACE=$P/trace $TOOL --boot || fail "--boot run $i: exit $?"
done
expect_eq "--boot: early exits only" "$(sort $P/trace | uniq -c | tr -s ' ')" " 5 boot: already done"
expect_eq "--boot: owners" "$(owners) $(overrides)" "qpi_uncore $nfn $nfn"
t_end

t_begin "release_refused_while_qpi_uncore_events_are_open"
qperf <<EOT
open e uncore_r3qpi_0 0x01 socket=1
sh $TOOL --release > $P/t4 2>&1; echo \$? > $P/t4.rc
EOT
expect_eq "exit" "$(cat $P/t4.rc)" 1
grep -q "refused: perf events are open on qpi_uncore" $P/t4 || fail "message: $(cat $P/t4)"
expect_eq "nothing changed" "$(owners)" "qpi_uncore $nfn"
[ -e $RELEASED ] && fail "refused release left $RELEASED"
t_end

t_begin "release_gives_intel_uncore_its_pmus_back"
$TOOL --release > $P/t5 2>&1 || fail "release failed: $(cat $P/t5)"
expect_eq "owners" "$(owners)" "$INTEL $nfn"
expect_eq "no override" "$(overrides)" 0
[ -e $RELEASED ] || fail "no $RELEASED"
# only qpi_uncore's QPI PMUs have link_speed
[ -d "$PMUS/uncore_qpi_0" ] && [ ! -e "$PMUS/uncore_qpi_0/link_speed" ] ||
	fail "uncore_qpi_0 is not intel_uncore's"
qpi_and_ubox 4242
expect_num "intel_uncore counts again" "$QCOUNT" 4242
$TOOL --release > $P/t6 2>&1 || fail "second release failed: $(cat $P/t6)"
grep -q "nothing to release" $P/t6 || fail "message: $(cat $P/t6)"
# what udev runs on intel_uncore's binds leaves a release alone
$TOOL --boot > $P/t6b 2>&1 || fail "--boot: $(cat $P/t6b)"
expect_eq "--boot after --release" "$(owners)" "$INTEL $nfn"
t_end

t_begin "failed_load_is_an_error_and_release_recovers"
qpiu_unload
QPI_TAKEOVER_MODPROBE=$P/modprobe-fail $TOOL > $P/t7 2>&1
expect_eq "exit" "$?" 1
grep -q "loading qpi_uncore failed: modprobe: FATAL: Module qpi_uncore not found" $P/t7 ||
	fail "message: $(cat $P/t7)"
expect_eq "reserved for qpi_uncore" "$(owners) $(overrides)" "none $nfn $nfn"
[ -e $RELEASED ] && fail "$RELEASED left after a takeover"
# qpistat says why no QPI PMU exists
first=$(for d in /sys/bus/pci/devices/*; do
	grep -qx qpi_uncore "$d/driver_override" && echo "${d##*/}"; done | LC_ALL=C sort | head -n 1)
out=$($QPISTAT -I 10 -c 1 2>&1)
expect_eq "qpistat exit (EX_UNAVAILABLE)" "$?" 69
expect_eq "qpistat" "$(echo "$out" | head -n 3)" "qpistat: no uncore_qpi_* PMU in /sys/bus/event_source/devices.
  $nfn PCI functions (the first $first) are reserved for qpi_uncore
  (driver_override) and bound to no driver; intel_uncore cannot take them."
echo "$out" | grep -qF "qpi_uncore is not loaded: modprobe qpi_uncore." || fail "qpistat: $out"
echo "$out" | grep -qF "qpi-uncore-takeover --release." || fail "qpistat: $out"
$TOOL --release > $P/t8 2>&1 || fail "release failed: $(cat $P/t8)"
expect_eq "back with intel_uncore" "$(owners) $(overrides)" "$INTEL $nfn 0"
t_end

# From here the shipped rule runs in systemd-udevd and modules load through
# kmod's modprobe and the shipped modprobe.d softdep (mkinitramfs.sh puts
# them in every guest).
[ -s $P/depmod.out ] && echo "# depmod: $(cat $P/depmod.out)"
rm -f $RELEASED

t_begin "udev_intel_uncore_first"
udev_start
fresh
expect_eq "marked by the add rule" "$(overrides)" "$nfn"
# the softdep loads qpi_uncore after intel_uncore
kmp intel_uncore > $P/u1 2>&1 || fail "modprobe intel_uncore: $(cat $P/u1)"
settle
grep -q '^qpi_uncore ' /proc/modules || fail "the softdep did not load qpi_uncore"
expect_eq "owners" "$(owners)" "qpi_uncore $nfn"
intel_keeps_the_rest
qpi_and_ubox 1000003
expect_num "counts" "$QCOUNT" 1000003
t_end

t_begin "udev_bind_hands_over_what_intel_uncore_bound"
# functions that appeared while udevd was not running: intel_uncore binds
# them, and its bind events run the tool
udev_stop
fresh
expect_eq "unmarked" "$(overrides)" 0
udev_start
intel_load
settle
expect_eq "taken from intel_uncore, reserved" "$(owners) $(overrides)" "none $nfn $nfn"
kmp qpi_uncore > $P/u2 2>&1 || fail "modprobe qpi_uncore: $(cat $P/u2)"
expect_eq "owners" "$(owners)" "qpi_uncore $nfn"
intel_keeps_the_rest
qpi_and_ubox 2718
expect_num "counts" "$QCOUNT" 2718
t_end

t_begin "udev_coldplug_finds_intel_uncore_bound"
# intel_uncore loaded in an initramfs without the rule: the coldplug's add
# events find the functions bound
udev_stop
fresh
intel_load
kmp qpi_uncore > $P/u3 2>&1 || fail "modprobe qpi_uncore: $(cat $P/u3)"
expect_eq "intel_uncore has them" "$(owners)" "$INTEL $nfn"
udev_start
$LX/udevadm trigger --action=add --subsystem-match=pci
settle
expect_eq "owners" "$(owners)" "qpi_uncore $nfn"
intel_keeps_the_rest
qpi_and_ubox 31337
expect_num "counts" "$QCOUNT" 31337
t_end

t_begin "udev_release_is_kept"
# reloading intel_uncore binds the functions: the rule must leave them
QPI_TAKEOVER_MODPROBE=$P/kmodprobe $TOOL --release > $P/u4 2>&1 ||
	fail "release failed: $(cat $P/u4)"
settle
expect_eq "owners" "$(owners)" "$INTEL $nfn"
$LX/udevadm trigger --action=add --subsystem-match=pci
settle
expect_eq "after a coldplug" "$(owners) $(overrides)" "$INTEL $nfn 0"
qpi_and_ubox 4243
expect_num "intel_uncore counts" "$QCOUNT" 4243
# a takeover by hand ends the release
QPI_TAKEOVER_MODPROBE=$P/kmodprobe $TOOL > $P/u5 2>&1 || fail "takeover: $(cat $P/u5)"
settle
expect_eq "taken again" "$(owners)" "qpi_uncore $nfn"
[ -e $RELEASED ] && fail "$RELEASED left after a takeover by hand"
t_end

t_begin "udev_qpi_uncore_first"
fresh
kmp qpi_uncore > $P/u6 2>&1 || fail "modprobe qpi_uncore: $(cat $P/u6)"
expect_eq "qpi_uncore has them" "$(owners)" "qpi_uncore $nfn"
kmp intel_uncore > $P/u7 2>&1 || fail "modprobe intel_uncore: $(cat $P/u7)"
settle
expect_eq "owners" "$(owners)" "qpi_uncore $nfn"
intel_keeps_the_rest
qpi_and_ubox 99991
expect_num "counts" "$QCOUNT" 99991
# udevd parsed the rule without a complaint
grep -i "60-qpi-uncore" $P/udevd.log && fail "udevd about the rule: $(grep -i 60-qpi-uncore $P/udevd.log)"
t_end

# A kernel upgrade whose DKMS build failed: no qpi_uncore.ko for the
# running kernel.  The rule reserves nothing, intel_uncore keeps the
# functions and their PMUs, and the tool by hand says why it refuses.
t_begin "udev_without_the_module_claims_nothing"
mv $P/root/lib/modules/$kv/updates/qpi_uncore.ko $P/qpi_uncore.ko.away
$LX/depmod -b $P/root "$kv" > /dev/null 2>&1
fresh
expect_eq "nothing reserved" "$(overrides)" 0
kmp intel_uncore > $P/m1 2>&1
settle
expect_eq "intel_uncore keeps them" "$(owners) $(overrides)" "$INTEL $nfn 0"
grep -q '^qpi_uncore ' /proc/modules && fail "qpi_uncore loaded"
$TOOL > $P/m2 2>&1
expect_eq "by hand: exit" "$?" 1
grep -q "refused: qpi_uncore is not installed for this kernel (no qpi_uncore.ko in /lib/modules/$kv/modules.dep)" $P/m2 ||
	fail "message: $(cat $P/m2)"
expect_eq "by hand: nothing changed" "$(owners) $(overrides)" "$INTEL $nfn 0"
qpi_and_ubox 8086
expect_num "intel_uncore counts" "$QCOUNT" 8086
mv $P/qpi_uncore.ko.away $P/root/lib/modules/$kv/updates/qpi_uncore.ko
$LX/depmod -b $P/root "$kv" > /dev/null 2>&1
t_end

udev_stop
qpiu_unload
intel_unload
qpisim_unload
ktap_finish
