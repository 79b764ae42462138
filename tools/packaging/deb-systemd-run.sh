#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest side of tools/packaging/deb-systemd.sh, run by qpi-test.service
# at every boot of a Debian guest with systemd as PID 1.  The first boot
# installs both packages with apt and reboots; the second checks the udev
# hand-over, the units, qpistat --check, then purges the packages and
# checks that the functions are intel_uncore's again.  KTAP on stdout
# (the second serial port), ended by QPIGUEST-EXIT, then the guest powers
# off.
set -uo pipefail

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LC_ALL=C TERM=dumb PAGER=cat SYSTEMD_PAGER=cat
export DEBIAN_FRONTEND=noninteractive

dir=/root/qpi
state=$dir/state
kver=$(uname -r)
pci=/sys/bus/pci/devices
pmus=/sys/bus/event_source/devices
n=$(cat "$state.n" 2> /dev/null || echo 0)
rc=$(cat "$state.rc" 2> /dev/null || echo 0)
stage=$(cat "$state" 2> /dev/null || echo install)

result() { # RC NAME
	n=$((n + 1))
	if [[ $1 == 0 ]]; then echo "ok $n $2"; else echo "not ok $n $2"; rc=1; fi
	echo "$n" > "$state.n"
	echo "$rc" > "$state.rc"
}
# step NAME CMD...: a test case of one command, its output on failure
step() {
	local what=$1 ok=0
	shift
	"$@" > /tmp/step.log 2>&1 || ok=$?
	((ok == 0)) || tail -n 40 /tmp/step.log | sed 's/^/# /'
	result "$ok" "$what"
}
finish() {
	echo "QPIGUEST-EXIT: $rc"
	echo finished > "$state"
	sync
	systemctl poweroff
	exit 0
}

# qpisim's QPI, R3QPI and mask/match functions (SNB-EP) and their drivers
fns() {
	local d id
	for d in "$pci"/*; do
		id=$(cat "$d/device")
		case $id in 0x3c41 | 0x3c42 | 0x3c44 | 0x3c45 | 0x3c86 | 0x3c96) ;; *) continue ;; esac
		if [[ -e $d/driver ]]; then
			echo "${d##*/} $(basename "$(readlink "$d/driver")")"
		else
			echo "${d##*/} -"
		fi
	done
}
# all_with DRIVER: the 12 functions (2 sockets x 6) are DRIVER's
all_with() {
	local f
	f=$(fns)
	echo "$f"
	[[ $(echo "$f" | grep -c .) == 12 && -z $(echo "$f" | grep -v " $1\$") ]]
}

case $stage in
install)
	echo "KTAP version 1"
	echo "1..15"
	echo "# guest: $kver, systemd $(systemctl --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p') as PID 1 ($(cat /proc/1/comm)), $(nproc) cpus"
	step "boot 1: qpisim's 12 functions are intel_uncore's (snbep_uncore) before the packages" \
		all_with snbep_uncore
	start=$SECONDS
	step "apt-get install ./qpi-uncore-dkms_*.deb ./qpistat_*.deb (no network: the dependencies are in the image; DKMS builds qpi_uncore)" \
		apt-get install -y --no-install-recommends "$dir"/qpi-uncore-dkms_*.deb "$dir"/qpistat_*.deb
	echo "# apt-get install took $((SECONDS - start)) s"
	installed() {
		dkms status -m qpi_uncore
		dkms status -m qpi_uncore | grep -q "$kver.*installed" &&
			[[ -n $(find "/lib/modules/$kver/updates/dkms" -name 'qpi_uncore.ko*') ]] &&
			[[ -x /usr/bin/qpistat && -x /usr/sbin/qpi-uncore-takeover ]] &&
			[[ -f /lib/udev/rules.d/60-qpi-uncore.rules && -f /lib/systemd/system/qpistat.service ]]
	}
	step "dkms status: qpi_uncore installed for $kver; qpistat, takeover, udev rule, units in place" installed
	enabled() {
		systemctl is-enabled qpistat.service qpistat-textfile.service
		[[ $(systemctl is-enabled qpistat.service) == enabled ]] &&
			[[ $(systemctl is-enabled qpistat-textfile.service) == disabled ]] &&
			! systemctl -q is-active qpistat.service && ! systemctl -q is-active qpistat-textfile.service
	}
	step "the exporter enabled, the textfile unit not (one measuring qpistat a host); neither started by the installation (the hand-over comes first)" enabled
	echo reboot > "$state"
	echo "# rebooting"
	sync
	systemctl reboot
	exit 0
	;;
reboot)
	echo "# boot 2"
	step "boot 2: udev handed the 12 functions to qpi_uncore" all_with qpi_uncore
	step "intel_uncore is loaded and keeps its other PMUs (uncore_ubox)" \
		sh -c "grep '^intel_uncore ' /proc/modules && ls -d $pmus/uncore_ubox"
	units() {
		systemctl --no-pager status qpistat.service qpistat-textfile.service
		systemctl -q is-active qpistat.service && ! systemctl -q is-active qpistat-textfile.service
	}
	step "qpistat.service active, qpistat-textfile.service not" units
	order() {
		# each unit's start was after the coldplug's events were done
		local u t s
		t=$(systemctl show -P ExecMainStartTimestampMonotonic systemd-udev-trigger.service)
		for u in qpistat.service; do
			s=$(systemctl show -P ExecMainStartTimestampMonotonic "$u")
			echo "$u started at $s, udev trigger at $t"
			((s > t)) || return 1
			systemctl show -P ExecStartPre "$u" | grep -q 'udevadm.*settle' || return 1
		done
		journalctl -b -u qpistat.service | grep -i 'refused' && return 1
		return 0
	}
	step "the exporter started after udev's coldplug, through udevadm settle" order
	metrics() {
		local body
		body=$(curl -sS --fail --max-time 30 http://127.0.0.1:9739/metrics) || return 1
		echo "$body" | grep -E '^qpi_' | head -n 5
		echo "$body" | grep -qE '^qpi_[a-z_]+\{.*socket="1"' 
	}
	step "GET http://127.0.0.1:9739/metrics: 200, qpi_ metrics of both sockets" metrics
	# the operator's other choice: the textfile writer instead of the
	# exporter (each holds every port's counters)
	textfile() {
		local f=/var/lib/prometheus/node-exporter/qpi.prom i
		systemctl stop qpistat.service && systemctl start qpistat-textfile.service || return 1
		for i in $(seq 60); do
			grep -qE '^qpi_[a-z_]+\{.*socket="1"' "$f" 2> /dev/null && break
			sleep 1
		done
		ls -l "$f" && head -n 5 "$f" && grep -qE '^qpi_[a-z_]+\{.*socket="1"' "$f" &&
			systemctl -q is-active qpistat-textfile.service
	}
	step "qpistat.service stopped, qpistat-textfile.service started: it wrote /var/lib/prometheus/node-exporter/qpi.prom" textfile
	check() {
		qpistat --check
	}
	step "qpistat --check passes against qpisim" check
	sed -n 's/^/#   /p' /tmp/step.log | head -n 12
	# the units are stopped by qpistat's prerm, the functions released by
	# qpi-uncore-dkms's
	step "apt-get purge -y qpistat qpi-uncore-dkms" apt-get purge -y qpistat qpi-uncore-dkms
	gone() {
		local left
		left=$(dkms status -m qpi_uncore; find /usr/src -maxdepth 1 -name 'qpi_uncore-*'
			find "/lib/modules/$kver" -name 'qpi_uncore.ko*'
			ls /usr/bin/qpistat /usr/sbin/qpi-uncore-takeover /lib/udev/rules.d/60-qpi-uncore.rules \
				/lib/systemd/system/qpistat.service /lib/systemd/system/qpistat-textfile.service \
				/lib/modprobe.d/qpi_uncore.conf /etc/systemd/system/multi-user.target.wants/qpistat.service \
				2> /dev/null)
		echo "left: $left"
		[[ -z $left ]] && ! systemctl -q is-active qpistat.service &&
			! systemctl -q is-active qpistat-textfile.service
	}
	step "purged: no module, source, tool, rule, unit or enablement left; both units stopped" gone
	step "the 12 functions are intel_uncore's (snbep_uncore) again" all_with snbep_uncore
	step "intel_uncore's uncore_qpi_0 counts clockticks" \
		perf stat -a -e uncore_qpi_0/clockticks/ -- sleep 0.2
	finish
	;;
*)
	exit 0
	;;
esac
