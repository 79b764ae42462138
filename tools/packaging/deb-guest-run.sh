#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest side of tools/packaging/deb-guest.sh: PID 1 of a QEMU guest
# booted into a copy of a matrix kernel's build root.  Installs the package
# with dpkg (DKMS builds qpi_uncore for the running kernel), loads it beside
# qpisim, counts injected traffic exactly with perf stat, purges it.  KTAP
# between QPIGUEST-BEGIN and QPIGUEST-EXIT, then powers off.
set -euo pipefail

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LC_ALL=C TERM=dumb PAGER=cat PERF_PAGER=cat
export DEBIAN_FRONTEND=noninteractive

off() {
	sync
	busybox poweroff -f 2> /dev/null || echo o > /proc/sysrq-trigger
	sleep 10
}
trap 'echo "QPIGUEST-EXIT: ${rc:-1}"; off' EXIT

mountpoint -q /proc || mount -t proc proc /proc
mountpoint -q /sys || mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -o remount,rw /
# kernel messages would break the KTAP lines on the one console
echo 1 > /proc/sys/kernel/printk
echo -1 > /proc/sys/kernel/perf_event_paranoid

kver=$(uname -r)
dbg=/sys/kernel/debug/qpisim
pmus=/sys/bus/event_source/devices
n=0 rc=0
result() { # RC NAME
	n=$((n + 1))
	if [[ $1 == 0 ]]; then echo "ok $n $2"; else echo "not ok $n $2"; rc=1; fi
}
# step NAME CMD...: a test case of one command, its output on failure
step() {
	local what=$1 ok=0
	shift
	"$@" > /tmp/step.log 2>&1 || ok=$?
	((ok == 0)) || tail -n 40 /tmp/step.log | sed 's/^/# /'
	result "$ok" "$what"
}

echo
echo QPIGUEST-BEGIN
echo "KTAP version 1"
echo "1..6"
echo "# guest: $kver, $(nproc) cpus, $(perf --version 2>&1)"

start=$SECONDS
step "dpkg -i qpi-uncore-dkms: DKMS builds and installs qpi_uncore for $kver" \
	dpkg -i /qpi/qpi-uncore-dkms_*.deb
echo "# dpkg -i took $((SECONDS - start)) s"

installed() {
	local ko
	dkms status -m qpi_uncore | grep -q "$kver.*installed" || { echo "dkms status: $(dkms status)"; return 1; }
	ko=$(find "/lib/modules/$kver/updates/dkms" -name 'qpi_uncore.ko*' | head -n 1)
	[[ -n $ko ]] || { echo "no qpi_uncore.ko in /lib/modules/$kver/updates/dkms"; return 1; }
	[[ $(modinfo -F vermagic "$ko" | cut -d' ' -f1) == "$kver" ]] || { modinfo "$ko"; return 1; }
	# the version qpistat --check reports is the package's
	[[ $(modinfo -F version "$ko") == "$(dpkg-query -W -f '${Version}' qpi-uncore-dkms | sed 's/-[^-]*$//')" ]] ||
		{ echo "modinfo version '$(modinfo -F version "$ko")', package $(dpkg-query -W -f '${Version}' qpi-uncore-dkms)"; return 1; }
	[[ -z $(find /lib/modules/ -name 'qpisim.ko*') ]] || { echo "qpisim installed"; return 1; }
	[[ -x /usr/sbin/qpi-uncore-takeover ]] &&
		grep -q 'RUN+="/usr/sbin/qpi-uncore-takeover --boot"' /lib/udev/rules.d/60-qpi-uncore.rules &&
		grep -qx 'softdep intel_uncore post: qpi_uncore' /lib/modprobe.d/qpi_uncore.conf
}
step "dkms status installed, qpi_uncore.ko vermagic $kver and the package version, no qpisim; takeover, udev rule, softdep in place" installed

loaded() {
	insmod /qpi/qpisim.ko platform=snbep &&
		modprobe qpi_uncore &&
		[[ -d $pmus/uncore_qpi_0 && -d $pmus/uncore_r3qpi_1 ]] &&
		modinfo -n qpi_uncore | grep -q updates/dkms
}
step "qpisim (snbep) and modprobe qpi_uncore: the DKMS module registers uncore_qpi_0, uncore_r3qpi_1" loaded

# count PMU EVENT BOX EV BASE: perf stat --per-socket reads exactly the
# events injected into BOX of each socket (BASE * (socket + 1))
count() {
	local pmu=$1 event=$2 box=$3 ev=$4 base=$5 inj="" s got out ok=0
	for s in 0 1; do
		inj="$inj echo 'event socket=$s box=$box event=$ev count=$((base * (s + 1)))' > $dbg/inject;"
	done
	out=$(perf stat -a --per-socket -x, -e "$pmu/$event/" -- sh -c "$inj" 2>&1)
	for s in 0 1; do
		got=$(echo "$out" | awk -F, -v s="S$s" '$1 == s { print $3 }')
		if [[ $got != "$((base * (s + 1)))" ]]; then
			echo "# $pmu/$event/ socket $s: got '$got', want $((base * (s + 1)))"
			ok=1
		fi
	done
	((ok == 0)) || printf '#   %s\n' "${out//$'\n'/$'\n'#   }"
	return "$ok"
}
ok=0
count uncore_qpi_0 clockticks qpi0 0x14 1000003 || ok=$?
result "$ok" "perf stat -a --per-socket uncore_qpi_0/clockticks/: exact count per socket"
ok=0
count uncore_r3qpi_1 event=0x01 r3qpi1 0x01 700001 || ok=$?
result "$ok" "perf stat -a --per-socket uncore_r3qpi_1/event=0x01/: exact count per socket"

purged() {
	modprobe -r qpi_uncore && rmmod qpisim && dpkg --purge qpi-uncore-dkms || return 1
	[[ -z $(dkms status -m qpi_uncore) ]] || { dkms status; return 1; }
	[[ -z $(find "/lib/modules/$kver" -name 'qpi_uncore.ko*') ]] || { echo "module left"; return 1; }
	[[ -z $(find /usr/src -maxdepth 1 -name 'qpi_uncore-*') && ! -e /var/lib/dkms/qpi_uncore && ! -e /usr/sbin/qpi-uncore-takeover ]]
}
step "dpkg --purge: DKMS removes the module, nothing left" purged
