#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# qpi_uncore beside intel_uncore: qpi-uncore-takeover hands the QPI, R3QPI
# and mask/match functions over and back, refuses while events are open,
# is idempotent, and both load orders end with the functions at qpi_uncore
# (the udev rule's two actions: driver_override on "add", the tool on
# "bind").  intel_uncore keeps and can open its other PMUs throughout.
. "$(dirname "$0")/lib.sh"

ktap_plan 9

TOOL=/usr/sbin/qpi-uncore-takeover
INTEL=${PLATFORM}_uncore
P=/tmp/qpit
mkdir -p $P

# The guest has no modules.dep: the tool loads modules through this.
cat > $P/modprobe <<EOT
#!/bin/sh
case "\$1" in
intel_uncore) for m in \$(cat /lib/modules/stock/load-order); do insmod /lib/modules/stock/\$m || exit 1; done ;;
qpi_uncore) insmod $MODDIR/qpi_uncore.ko ;;
*) exit 1 ;;
esac
EOT
chmod +x $P/modprobe
export QPI_TAKEOVER_MODPROBE=$P/modprobe

# Whatever happens, leave no intel_uncore events behind for later tests.
trap 'grep -q "^qpi_uncore " /proc/modules && rmmod qpi_uncore;
      grep -q "^intel_uncore " /proc/modules && rmmod intel_uncore' EXIT

intel_load()
{
	for m in $(cat /lib/modules/stock/load-order); do
		insmod "/lib/modules/stock/$m" || fail "cannot load stock $m"
	done
}

intel_unload() { grep -q '^intel_uncore ' /proc/modules && rmmod intel_uncore; return 0; }

# owners: "driver count" lines for the QPI/R3QPI/mask-match functions
owners()
{
	for d in /sys/bus/pci/devices/*; do
		case "$(cat "$d/device")" in
		0x3c41 | 0x3c42 | 0x3c44 | 0x3c45 | 0x3c86 | 0x3c96 | \
		0x0e32 | 0x0e33 | 0x0e36 | 0x0e37 | 0x0e3a | 0x0e3e | 0x0e86 | 0x0e96)
			if [ -e "$d/driver" ]; then
				basename "$(readlink "$d/driver")"
			else
				echo none
			fi ;;
		esac
	done | sort | uniq -c | awk '{ print $2, $1 }' | paste -sd' ' -
}

nfn=$(qsim "$PLATFORM" > /dev/null 2>&1; owners | awk '{ print $2 }')

# qpi_count: perf stat of a qpi clockticks event and intel_uncore's UBox
# PMU in one run; prints the QPI count, checks the UBox event opened
qpi_and_ubox()
{
	perf stat -a -x, -o $P/stat -e uncore_qpi_0/event=0x14/ -e uncore_ubox/event=0x0/ -- \
		sh -c "echo 'event socket=0 box=qpi0 event=0x14 count=$1' > $DBG/inject" \
		> $P/out 2>&1 || fail "perf stat: $(tail -n 3 $P/out)"
	grep -q 'uncore_ubox' $P/stat || fail "no UBox line: $(cat $P/stat)"
	grep 'uncore_ubox' $P/stat | grep -qE 'not (supported|counted)' &&
		fail "intel_uncore's UBox event did not count: $(grep ubox $P/stat)"
	grep 'uncore_qpi_0' $P/stat | cut -d, -f1 | grep -E '^[0-9]+$' || echo "none"
}

t_begin "nothing_to_do_without_intel_uncore"
qpiu_unload
intel_unload
expect_ok "load qpisim" qsim "$PLATFORM"
out=$($TOOL 2>&1)
expect_eq "exit" "$?" 0
echo "$out" | grep -q "intel_uncore is not loaded" || fail "message: $out"
expect_eq "owners" "$(owners)" "none $nfn"
expect_eq "no override" "$(cat /sys/bus/pci/devices/*/driver_override | grep -c qpi_uncore)" 0
t_end

t_begin "loads_beside_intel_uncore_and_names_the_tool"
intel_load
dmesg_mark
expect_ok "load qpi_uncore" qpiu_load
expect_dmesg "names the tool" "run: qpi-uncore-takeover"
expect_dmesg "blacklisting stays the alternative" "or blacklist it"
expect_eq "owners" "$(owners)" "$INTEL $nfn"
t_end

t_begin "refused_while_intel_uncore_events_are_open"
qperf <<EOT
open e uncore_qpi_0 0x14 socket=0
sh $TOOL > $P/t1 2>&1; echo \$? > $P/t1.rc
read e
EOT
expect_eq "exit" "$(cat $P/t1.rc)" 1
grep -q "refused: perf events are open on intel_uncore" $P/t1 || fail "message: $(cat $P/t1)"
expect_eq "nothing changed" "$(owners)" "$INTEL $nfn"
expect_eq "no override" "$(cat /sys/bus/pci/devices/*/driver_override | grep -c qpi_uncore)" 0
t_end

t_begin "takeover_keeps_intel_uncore_other_pmus"
$TOOL > $P/t2 2>&1 || fail "takeover failed: $(cat $P/t2)"
grep -q "qpi_uncore now drives the $nfn" $P/t2 || fail "message: $(cat $P/t2)"
expect_eq "owners" "$(owners)" "qpi_uncore $nfn"
[ -e "$PMUS/uncore_qpi_0/link_speed" ] || fail "uncore_qpi_0 is not qpi_uncore's"
for p in uncore_ubox uncore_pcu uncore_cbox_0; do
	[ -d "$PMUS/$p" ] || fail "intel_uncore's $p is gone"
done
expect_num "qpi_uncore counts exactly beside intel_uncore's UBox" "$(qpi_and_ubox 7654321)" 7654321
t_end

t_begin "takeover_twice_changes_nothing"
$TOOL > $P/t3 2>&1 || fail "second run failed: $(cat $P/t3)"
grep -q "already done" $P/t3 || fail "message: $(cat $P/t3)"
expect_eq "owners" "$(owners)" "qpi_uncore $nfn"
t_end

t_begin "release_refused_while_qpi_uncore_events_are_open"
qperf <<EOT
open e uncore_r3qpi_0 0x01 socket=1
sh $TOOL --release > $P/t4 2>&1; echo \$? > $P/t4.rc
EOT
expect_eq "exit" "$(cat $P/t4.rc)" 1
grep -q "refused: perf events are open on qpi_uncore" $P/t4 || fail "message: $(cat $P/t4)"
expect_eq "nothing changed" "$(owners)" "qpi_uncore $nfn"
t_end

t_begin "release_gives_intel_uncore_its_pmus_back"
$TOOL --release > $P/t5 2>&1 || fail "release failed: $(cat $P/t5)"
expect_eq "owners" "$(owners)" "$INTEL $nfn"
expect_eq "no override" "$(cat /sys/bus/pci/devices/*/driver_override | grep -c qpi_uncore)" 0
# only qpi_uncore's QPI PMUs have link_speed
[ -d "$PMUS/uncore_qpi_0" ] && [ ! -e "$PMUS/uncore_qpi_0/link_speed" ] ||
	fail "uncore_qpi_0 is not intel_uncore's"
expect_num "intel_uncore counts again" "$(qpi_and_ubox 4242)" 4242
$TOOL --release > $P/t6 2>&1 || fail "second release failed: $(cat $P/t6)"
grep -q "nothing to release" $P/t6 || fail "message: $(cat $P/t6)"
t_end

t_begin "qpi_uncore_first_then_intel_uncore"
qpiu_unload
intel_unload
expect_ok "load qpi_uncore" qpiu_load
intel_load
# the udev "bind" rule only fires for intel_uncore binds; run it anyway
$TOOL --boot > $P/t7 2>&1 || fail "--boot: $(cat $P/t7)"
expect_eq "owners" "$(owners)" "qpi_uncore $nfn"
expect_num "counts" "$(qpi_and_ubox 31337)" 31337
t_end

t_begin "intel_uncore_first_with_the_add_rule"
qpiu_unload
intel_unload
# what the udev "add" rule does, before any module loads
for d in /sys/bus/pci/devices/*; do
	case "$(cat "$d/device")" in
	0x3c41 | 0x3c42 | 0x3c44 | 0x3c45 | 0x3c86 | 0x3c96 | \
	0x0e32 | 0x0e33 | 0x0e36 | 0x0e37 | 0x0e3a | 0x0e3e | 0x0e86 | 0x0e96)
		echo qpi_uncore > "$d/driver_override" ;;
	esac
done
intel_load
expect_eq "intel_uncore took none" "$(owners)" "none $nfn"
expect_ok "load qpi_uncore" qpiu_load
expect_eq "owners" "$(owners)" "qpi_uncore $nfn"
expect_num "counts" "$(qpi_and_ubox 2718)" 2718
t_end

qpiu_unload
intel_unload
qpisim_unload
ktap_finish
