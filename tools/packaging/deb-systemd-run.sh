#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest side of tools/packaging/deb-systemd.sh, run by qpi-test.service
# at every boot of a Debian guest with systemd as PID 1, at the kernel's
# own kernel.perf_event_paranoid (Debian's 3).  Three boots:
#  1. a machine without QPI (qpisim not loaded): install both packages
#     with apt, reboot;
#  2. the same machine: the exporter is enabled but never started (no
#     QPI PMON function pulls qpi-pmon.target), nothing failed; then make
#     it a machine with QPI (qpisim loaded at boot), reboot;
#  3. a two-socket SNB-EP: the udev hand-over, the exporter started by
#     qpi-pmon.target, serving at paranoid 3 with no capability left, the
#     textfile unit, an operator's paranoid 2, qpistat --check; then
#     purge the packages and check that the functions are intel_uncore's
#     again.
# KTAP on stdout (the second serial port), ended by QPIGUEST-EXIT, then
# the guest powers off.
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
	echo "1..20"
	echo "# guest: $kver, systemd $(systemctl --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p') as PID 1 ($(cat /proc/1/comm)), $(nproc) cpus"
	paranoid() {
		cat /proc/sys/kernel/perf_event_paranoid
		[[ $(cat /proc/sys/kernel/perf_event_paranoid) == 3 ]] &&
			[[ -z $(grep -rs perf_event_paranoid /etc/sysctl.d /etc/sysctl.conf /usr/lib/sysctl.d /lib/sysctl.d) ]]
	}
	step "kernel.perf_event_paranoid is 3, the kernel's default (CONFIG_SECURITY_PERF_EVENTS_RESTRICT), set by no sysctl file" paranoid
	step "boot 1: a machine without QPI: no QPI, R3QPI or mask/match function" \
		sh -c '! grep -qsE "0x(3c4[1245]|3c[89]6)" '"$pci"'/*/device'
	start=$SECONDS
	step "apt-get install ./qpi-uncore-dkms_*.deb ./qpistat_*.deb (no network: the dependencies are in the image; DKMS builds qpi_uncore)" \
		apt-get install -y --no-install-recommends "$dir"/qpi-uncore-dkms_*.deb "$dir"/qpistat_*.deb
	echo "# apt-get install took $((SECONDS - start)) s"
	installed() {
		dkms status -m qpi_uncore
		dkms status -m qpi_uncore | grep -q "$kver.*installed" &&
			[[ -n $(find "/lib/modules/$kver/updates/dkms" -name 'qpi_uncore.ko*') ]] &&
			[[ -x /usr/bin/qpistat && -x /usr/sbin/qpi-uncore-takeover ]] &&
			[[ -f /lib/udev/rules.d/60-qpi-uncore.rules && -f /lib/systemd/system/qpistat.service ]] &&
			[[ -f /lib/udev/rules.d/60-qpistat.rules && -f /lib/systemd/system/qpi-pmon.target ]] &&
			[[ -f /usr/share/doc/qpistat/qpistat.rst && -f /usr/share/man/man1/qpistat.1.gz ]]
	}
	step "dkms status: qpi_uncore installed for $kver; qpistat, takeover, both udev rules, units, qpi-pmon.target, qpistat(1) and the manual in place" installed
	enabled() {
		systemctl is-enabled qpistat.service qpistat-textfile.service
		ls /etc/systemd/system/qpi-pmon.target.wants/
		[[ $(systemctl is-enabled qpistat.service) == enabled ]] &&
			[[ $(systemctl is-enabled qpistat-textfile.service) == disabled ]] &&
			[[ -L /etc/systemd/system/qpi-pmon.target.wants/qpistat.service ]] &&
			! systemctl -q is-active qpistat.service && ! systemctl -q is-active qpistat-textfile.service
	}
	step "the exporter enabled into qpi-pmon.target, the textfile unit not (one measuring qpistat a host); neither started by the installation (the hand-over comes first)" enabled
	echo noqpi > "$state"
	echo "# rebooting"
	sync
	systemctl reboot
	exit 0
	;;
noqpi)
	echo "# boot 2: no QPI"
	# the coldplug's events done: a function would have pulled the target
	udevadm settle --timeout=120
	sleep 5
	never() {
		local u
		systemctl --no-pager status qpi-pmon.target qpistat.service
		journalctl -b -u qpistat.service --no-pager | tail -n 5
		for u in qpistat.service qpistat-textfile.service; do
			echo "$u: $(systemctl show -P ActiveState "$u"), $(systemctl show -P NRestarts "$u") restarts, started at $(systemctl show -P ExecMainStartTimestampMonotonic "$u")"
			[[ $(systemctl show -P ActiveState "$u") == inactive ]] &&
				[[ $(systemctl show -P NRestarts "$u") == 0 ]] &&
				[[ $(systemctl show -P ExecMainStartTimestampMonotonic "$u") == 0 ]] || return 1
		done
		[[ $(systemctl is-enabled qpistat.service) == enabled ]] &&
			[[ $(systemctl show -P ActiveState qpi-pmon.target) == inactive ]] &&
			[[ -z $(systemctl list-units --failed --no-legend --plain | grep -E 'qpi') ]] &&
			[[ -z $(journalctl -b -u qpistat.service -u qpistat-textfile.service --no-pager -q) ]]
	}
	step "boot 2, no QPI: qpistat.service enabled but never started (qpi-pmon.target not pulled), no restart, no failed unit, nothing in its journal" never
	nocheck() {
		qpistat --check
		[[ $? == 1 ]]
	}
	step "qpistat --check on a machine without QPI fails (exit 1) and says why" nocheck
	sed -n 's/^/#   /p' /tmp/step.log | head -n 12
	# the same machine, now with QPI: qpisim loaded at boot, before udev's
	# coldplug (deb-systemd.sh's drop-in orders systemd-udev-trigger after
	# systemd-modules-load), as on hardware whose functions exist from boot
	cp "$dir/qpisim.conf" /etc/modules-load.d/qpisim.conf
	echo reboot > "$state"
	echo "# rebooting with qpisim"
	sync
	systemctl reboot
	exit 0
	;;
reboot)
	echo "# boot 3: a two-socket SNB-EP (qpisim)"
	step "boot 3: udev handed the 12 functions to qpi_uncore" all_with qpi_uncore
	step "intel_uncore is loaded and keeps its other PMUs (uncore_ubox)" \
		sh -c "grep '^intel_uncore ' /proc/modules && ls -d $pmus/uncore_ubox"
	units() {
		local i
		# started by the device units of the QPI functions: wait for it
		for i in $(seq 600); do
			systemctl -q is-active qpistat.service && break
			[[ $(systemctl show -P ActiveState qpistat.service) == failed ]] && break
			sleep 1
		done
		systemctl --no-pager status qpi-pmon.target qpistat.service qpistat-textfile.service
		systemctl -q is-active qpi-pmon.target && systemctl -q is-active qpistat.service &&
			! systemctl -q is-active qpistat-textfile.service
	}
	step "qpi-pmon.target and qpistat.service active, qpistat-textfile.service not" units
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
		cat /proc/sys/kernel/perf_event_paranoid
		body=$(curl -sS --fail --max-time 30 http://127.0.0.1:9739/metrics) || return 1
		echo "$body" | grep -E '^qpi_' | head -n 5
		echo "$body" | grep -qE '^qpi_[a-z_]+\{.*socket="0"' &&
			echo "$body" | grep -qE '^qpi_[a-z_]+\{.*socket="1"'
	}
	step "at paranoid $(cat /proc/sys/kernel/perf_event_paranoid): GET http://127.0.0.1:9739/metrics: 200, qpi_ metrics of both sockets" metrics
	# what the exporter holds while it serves, from /proc/PID/status
	dropped() {
		local pid st
		pid=$(systemctl show -P MainPID qpistat.service)
		st=$(grep -E '^(Uid|Gid|Groups|CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs):' "/proc/$pid/status")
		echo "$st"
		journalctl -b -u qpistat.service --no-pager -q | tail -n 3
		grep -qE '^Uid:\s+[1-9][0-9]*\s+[1-9][0-9]*\s+[1-9][0-9]*\s+[1-9]' <<< "$st" &&
			grep -qx 'CapPrm:[[:space:]]*0000000000000000' <<< "$st" &&
			grep -qx 'CapEff:[[:space:]]*0000000000000000' <<< "$st" &&
			grep -qx 'CapInh:[[:space:]]*0000000000000000' <<< "$st" &&
			grep -qx 'CapAmb:[[:space:]]*0000000000000000' <<< "$st" &&
			grep -qx 'NoNewPrivs:[[:space:]]*1' <<< "$st"
	}
	step "the serving exporter holds no capability (permitted, effective, inheritable, ambient all 0), no new privileges, a non-root uid" dropped
	# the operator's other choice: the textfile writer instead of the
	# exporter (each holds every port's counters)
	textfile() {
		local f=/var/lib/prometheus/node-exporter/qpi.prom i pid
		systemctl stop qpistat.service && systemctl start qpistat-textfile.service || return 1
		for i in $(seq 60); do
			grep -qE '^qpi_[a-z_]+\{.*socket="1"' "$f" 2> /dev/null && break
			sleep 1
		done
		pid=$(systemctl show -P MainPID qpistat-textfile.service)
		grep -E '^(Uid|CapPrm|CapEff|CapAmb|NoNewPrivs):' "/proc/$pid/status"
		ls -l "$f" && head -n 5 "$f" && grep -qE '^qpi_[a-z_]+\{.*socket="1"' "$f" &&
			systemctl -q is-active qpistat-textfile.service &&
			grep -qx 'CapEff:[[:space:]]*0000000000000000' "/proc/$pid/status" &&
			grep -qx 'CapPrm:[[:space:]]*0000000000000000' "/proc/$pid/status"
	}
	step "qpistat.service stopped, qpistat-textfile.service started at paranoid 3: it wrote /var/lib/prometheus/node-exporter/qpi.prom, no capability left" textfile
	# an operator who set kernel.perf_event_paranoid=2 (sysctl.d): the
	# same unit serves
	two() {
		local i
		systemctl stop qpistat-textfile.service || return 1
		sysctl -w kernel.perf_event_paranoid=2 || return 1
		systemctl start qpistat.service || return 1
		# it opens its events before it answers: under TCG, seconds
		for i in $(seq 30); do
			metrics && return 0
			sleep 2
		done
		return 1
	}
	step "an operator's kernel.perf_event_paranoid=2: qpistat.service restarted serves both sockets" two
	sysctl -w kernel.perf_event_paranoid=3 > /dev/null
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
				/lib/udev/rules.d/60-qpistat.rules /lib/systemd/system/qpi-pmon.target \
				/lib/systemd/system/qpistat.service /lib/systemd/system/qpistat-textfile.service \
				/lib/modprobe.d/qpi_uncore.conf /etc/systemd/system/qpi-pmon.target.wants \
				/etc/systemd/system/multi-user.target.wants/qpistat.service /usr/share/doc/qpistat \
				2> /dev/null)
		echo "left: $left"
		[[ -z $left ]] && ! systemctl -q is-active qpistat.service &&
			! systemctl -q is-active qpistat-textfile.service
	}
	step "purged: no module, source, tool, rule, unit, target, manual or enablement left; both units stopped" gone
	step "the 12 functions are intel_uncore's (snbep_uncore) again" all_with snbep_uncore
	step "intel_uncore's uncore_qpi_0 counts clockticks (root, at paranoid 3)" \
		perf stat -a -e uncore_qpi_0/clockticks/ -- sleep 0.2
	finish
	;;
*)
	exit 0
	;;
esac
