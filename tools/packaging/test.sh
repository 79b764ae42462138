#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Packaging checks for make check: make install/uninstall into a scratch
# DESTDIR, the systemd units' properties (systemd-analyze security
# --offline, no running systemd needed), and the DKMS round trip (add,
# build, install for the guest kernel, remove) on this host; that every
# path the documentation names is installed (docpaths.sh, on packages
# built by deb.sh --no-lintian).  KTAP output.
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$repo" || exit 1
kver=${QPI_KVER:-$(tools/vm/kver.sh)}
kdir=/usr/src/linux-headers-$kver
[[ -d $kdir ]] || kdir=/lib/modules/$kver/build
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$repo/tools/ktap.sh"

echo "KTAP version 1"
echo "1..21"

make -s KDIR="$kdir" install DESTDIR="$tmp" > "$tmp/log" 2>&1
ok=$?
ko=$tmp/lib/modules/$kver/updates/qpi_uncore.ko
rules=$tmp/etc/udev/rules.d/60-qpi-uncore.rules
[[ $ok == 0 && -f $ko && -x $tmp/usr/local/bin/qpistat ]] &&
	[[ -x $tmp/usr/local/sbin/qpi-uncore-takeover ]] &&
	grep -qx 'softdep intel_uncore post: qpi_uncore' "$tmp/etc/modprobe.d/qpi_uncore.conf" &&
	! grep -qx 'blacklist intel_uncore' "$tmp/etc/modprobe.d/qpi_uncore.conf" &&
	grep -q 'RUN+="/usr/local/sbin/qpi-uncore-takeover --boot"' "$rules" &&
	! grep -q '@SBINDIR@' "$rules" &&
	[[ $(modinfo -F vermagic "$ko" | cut -d' ' -f1) == "$kver" ]] &&
	[[ $(modinfo -F version "$ko") == "$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)" ]] &&
	[[ ! -e $tmp/lib/modules/$kver/updates/qpisim.ko ]]
ok=$?
[[ $ok == 0 ]] || sed 's/^/# /' "$tmp/log"
result $ok "make install: module for $kver with dkms.conf's version, qpistat, qpi-uncore-takeover, udev rule, modprobe.d softdep, no qpisim"

make -s KDIR="$kdir" uninstall DESTDIR="$tmp" > "$tmp/log" 2>&1 &&
	[[ ! -e $ko && ! -e $tmp/usr/local/bin/qpistat && ! -e $tmp/etc/modprobe.d/qpi_uncore.conf ]] &&
	[[ ! -e $tmp/usr/local/sbin/qpi-uncore-takeover && ! -e $rules ]]
result $? "make uninstall removes them"

# make install-userspace: qpistat's udev rule and target, the manual
# and man page the units point to; make uninstall-userspace removes them
rm -rf "$tmp/us"
make -s install-userspace DESTDIR="$tmp/us" > "$tmp/log" 2>&1
ok=$?
for f in etc/udev/rules.d/60-qpistat.rules etc/systemd/system/qpi-pmon.target \
	usr/local/share/man/man1/qpistat.1 usr/local/share/doc/qpistat/qpistat.rst \
	usr/local/share/qpistat/prometheus/qpi.rules.yml; do
	[[ -f $tmp/us/$f ]] || { echo "# no /$f"; ok=1; }
done
grep -rl '@[A-Z]*@' "$tmp/us/etc" && ok=1
make -s uninstall-userspace DESTDIR="$tmp/us" >> "$tmp/log" 2>&1 || ok=1
left=$(find "$tmp/us" -type f)
[[ -z $left ]] || { echo "# left: $left"; ok=1; }
[[ $ok == 0 ]] || sed 's/^/# /' "$tmp/log"
result $ok "make install-userspace: 60-qpistat.rules, qpi-pmon.target, qpistat(1), the manual in share/doc/qpistat, no @VAR@ left; uninstall-userspace removes every file"

# The takeover tool and the udev rule name exactly the driver's functions.
drv=$(grep -oE 'QPIU_DEV\(0x[0-9a-f]{4}' drivers/qpi_uncore/qpi_uncore_platform.c | cut -c10- | sort)
tool=$(sed -n '/^IDS="/,/"$/p' tools/takeover/qpi-uncore-takeover | grep -oE '0x[0-9a-f]{4}' | sort)
rule=$(grep -oE 'ATTR\{device\}!="[^"]*"' tools/packaging/60-qpi-uncore.rules |
	grep -oE '0x[0-9a-f]{4}' | sort)
[[ -n $drv && $drv == "$tool" && $drv == "$rule" ]]
ok=$?
[[ $ok == 0 ]] || echo "# driver: $(echo $drv) tool: $(echo $tool) rule: $(echo $rule)"
result $ok "qpi-uncore-takeover and the udev rule list the driver's $(echo "$drv" | wc -l) PCI IDs"

# qpistat's udev rule names exactly the QPI port functions (each is a
# uncore_qpi_<port> PMU, which qpistat needs): no R3QPI or mask/match
# function alone pulls qpi-pmon.target
qdrv=$(grep -oE 'QPIU_DEV\(0x[0-9a-f]{4}, [A-Z_]+, QPIU_FN_QPI,' drivers/qpi_uncore/qpi_uncore_platform.c |
	cut -c10-15 | sort)
qrule=$(grep -oE 'ATTR\{device\}=="[^"]*"' tools/packaging/60-qpistat.rules | grep -oE '0x[0-9a-f]{4}' | sort)
[[ -n $qdrv && $qdrv == "$qrule" ]] &&
	grep -q 'ATTR{device}=="[^"]*", TAG+="systemd", ENV{SYSTEMD_WANTS}+="qpi-pmon.target"' \
		tools/packaging/60-qpistat.rules
ok=$?
[[ $ok == 0 ]] || echo "# driver's QPI ports: $(echo $qdrv) rule: $(echo $qrule)"
result $ok "60-qpistat.rules: the driver's $(echo "$qdrv" | wc -l) QPI port functions pull qpi-pmon.target (TAG systemd, SYSTEMD_WANTS)"

# intel_uncore built into the kernel keeps no module reference count, so
# the tool cannot see open events: a fake sysfs of one such function.
fake=$tmp/sys
fn=$fake/bus/pci/devices/0000:7f:08.2
mkdir -p "$fn" "$fake/bus/pci/drivers/snbep_uncore" "$fake/module/intel_uncore" "$tmp/run"
# qpi_uncore installed for the running kernel, as modprobe would find it
mkdir -p "$tmp/modules/$(uname -r)/updates"
: > "$tmp/modules/$(uname -r)/updates/qpi_uncore.ko"
echo "updates/qpi_uncore.ko:" > "$tmp/modules/$(uname -r)/modules.dep"
echo 0x8086 > "$fn/vendor"
echo 0x3c41 > "$fn/device"
echo '(null)' > "$fn/driver_override"
ln -s ../../drivers/snbep_uncore "$fn/driver"
# The tool honours QPI_TAKEOVER_* only in test mode: root drops every
# capability for it (a process that is neither root nor has any is in test
# mode).
take()
{
	local as=()
	if [[ $EUID == 0 ]]; then
		chmod 755 "$tmp"
		chown -R 65534:65534 "$fake" "$tmp/run"
		as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	fi
	"${as[@]}" env QPI_TAKEOVER_SYSFS="$fake" QPI_TAKEOVER_RUNDIR="$tmp/run" \
		QPI_TAKEOVER_MODULES="$tmp/modules" tools/takeover/qpi-uncore-takeover "$@"
}
out=$(take 2>&1)
trc=$?
[[ $trc == 1 && $out == *"refused: intel_uncore is built into this kernel"*"run again with --force"* ]] &&
	[[ $(cat "$fn/driver_override") == '(null)' ]]
ok=$?
[[ $ok == 0 ]] || echo "# exit $trc: $out"
result $ok "qpi-uncore-takeover: built-in intel_uncore refused without --force, nothing written"
echo qpi_uncore > "$fn/driver_override"
rm "$fn/driver"
out=$(take --release 2>&1)
trc=$?
[[ $trc == 1 && $out == *"built into this kernel and cannot be reloaded"* ]] &&
	[[ $(cat "$fn/driver_override") == qpi_uncore && ! -e $tmp/run/qpi-uncore-released ]]
ok=$?
[[ $ok == 0 ]] || echo "# exit $trc: $out"
result $ok "qpi-uncore-takeover --release: built-in intel_uncore refused, nothing written"
# --force gets past that refusal: it marks the function and unbinds it from
# intel_uncore (a fake sysfs cannot bind it to qpi_uncore, so the tool then
# reports it unbound, which is right)
echo '(null)' > "$fn/driver_override"
ln -s ../../drivers/snbep_uncore "$fn/driver"
out=$(QPI_TAKEOVER_MODPROBE=true take --force 2>&1)
trc=$?
[[ $out != *refused* && $(cat "$fn/driver_override") == qpi_uncore ]] &&
	[[ $(cat "$fake/bus/pci/drivers/snbep_uncore/unbind") == 0000:7f:08.2 ]]
ok=$?
[[ $ok == 0 ]] || echo "# exit $trc: $out"
result $ok "qpi-uncore-takeover --force: built-in intel_uncore's function marked and unbound"


# Installed but refused by the kernel: an unsigned qpi_uncore.ko where
# only signed modules load (Secure Boot's lockdown).  The udev rule's
# --installed says no, so intel_uncore keeps the functions, and a takeover
# by hand names the cause, changing nothing.
mkdir -p "$fake/module/module/parameters" "$fake/kernel/security"
echo Y > "$fake/module/module/parameters/sig_enforce"
echo '(null)' > "$fn/driver_override"
[[ $EUID != 0 ]] || chown -R 65534:65534 "$fake"
take --installed
irc=$?
out=$(QPI_TAKEOVER_MODPROBE=true take --force 2>&1)
trc=$?
[[ $irc == 1 && $trc == 1 && $out == *"qpi_uncore.ko is not signed, and this kernel loads only signed modules (module.sig_enforce=Y, as under Secure Boot); intel_uncore keeps the functions"*"mokutil --import"* ]] &&
	[[ $(cat "$fn/driver_override") == '(null)' ]]
ok=$?
[[ $ok == 0 ]] || echo "# --installed $irc; exit $trc: $out"
result $ok "qpi-uncore-takeover: an unsigned qpi_uncore.ko under sig_enforce is not --installed (the udev rule leaves intel_uncore), takeover refused naming it"
echo N > "$fake/module/module/parameters/sig_enforce"
echo 'none [integrity] confidentiality' > "$fake/kernel/security/lockdown"
take --installed
irc=$?
printf '~Module signature appended~\n' >> "$tmp/modules/$(uname -r)/updates/qpi_uncore.ko"
take --installed
irc2=$?
echo '[none] integrity confidentiality' > "$fake/kernel/security/lockdown"
: > "$tmp/modules/$(uname -r)/updates/qpi_uncore.ko"
take --installed
irc3=$?
[[ $irc == 1 && $irc2 == 0 && $irc3 == 0 ]]
ok=$?
[[ $ok == 0 ]] || echo "# --installed: unsigned under lockdown $irc, signed $irc2, no lockdown $irc3"
result $ok "qpi-uncore-takeover --installed: unsigned under lockdown 1, signed 0, without lockdown 0"
rm -rf "$fake/module/module" "$fake/kernel"

# make install-userspace (what make dkms-install runs after DKMS) installs
# qpistat too: both units run it
rm -rf "$tmp/u"
make -s install-userspace DESTDIR="$tmp/u" > "$tmp/log" 2>&1 &&
	[[ -x $tmp/u/usr/local/bin/qpistat ]] &&
	grep -q '^ExecStart=/usr/local/bin/qpistat ' "$tmp/u/etc/systemd/system/qpistat.service"
ok=$?
[[ $ok == 0 ]] || sed 's/^/# /' "$tmp/log" | tail -n 20
result $ok "make install-userspace (make dkms-install) installs /usr/local/bin/qpistat, which the units run"

# make uninstall on a live system: the units stopped and disabled before
# their files go, systemd and udev reloaded after (fakes log the calls)
mkdir -p "$tmp/bin"
for t in systemctl udevadm; do
	printf '#!/bin/sh\necho "%s $*" >> %s/calls\n' "$t" "$tmp" > "$tmp/bin/$t"
	chmod 755 "$tmp/bin/$t"
done
: > "$tmp/calls"
make -s KDIR="$kdir" uninstall DESTDIR="$tmp/u" LIVE=1 SYSTEMCTL="$tmp/bin/systemctl" \
	UDEVADM="$tmp/bin/udevadm" > "$tmp/log" 2>&1
ok=$?
want="systemctl disable --now qpistat.service qpistat-textfile.service
systemctl daemon-reload
udevadm control --reload"
[[ $ok == 0 && $(cat "$tmp/calls") == "$want" && ! -e $tmp/u/usr/local/bin/qpistat ]] &&
	[[ ! -e $tmp/u/etc/systemd/system/qpistat.service ]]
ok=$?
[[ $ok == 0 ]] || { sed 's/^/# /' "$tmp/log" "$tmp/calls"; }
result $ok "make uninstall: disable --now both units, then daemon-reload and udevadm control --reload"

# The units as installed, checked offline (systemd-analyze of the host)
for u in qpistat qpistat-textfile; do
	sed 's|@BINDIR@|/usr/bin|' "tools/packaging/$u.service" > "$tmp/$u.service"
done
# Both units: started by qpi-pmon.target (so only on a machine with QPI
# PMON), with CAP_SYS_ADMIN only (what a default perf_event_paranoid
# above 2 wants; qpistat drops it once its events are open), qpistat(1)
# as their documentation
ok=0
for u in qpistat qpistat-textfile; do
	f=$tmp/$u.service
	[[ $(sed -n 's/^WantedBy=//p' "$f") == qpi-pmon.target ]] &&
		[[ $(sed -n 's/^AmbientCapabilities=//p' "$f") == CAP_SYS_ADMIN ]] &&
		[[ $(sed -n 's/^CapabilityBoundingSet=//p' "$f") == CAP_SYS_ADMIN ]] &&
		grep -qx 'Documentation=man:qpistat(1)' "$f" &&
		! grep -q 'Documentation/qpistat.rst' "$f" || { echo "# $u.service"; ok=1; }
done
grep -qx 'Documentation=man:qpistat(1)' tools/packaging/qpi-pmon.target || ok=1
result $ok "both units: WantedBy=qpi-pmon.target, CAP_SYS_ADMIN only (ambient and bounding), Documentation=man:qpistat(1)"

# Every path the documentation names: in a package (or make install's
# tree, or not ours by name), or in the source tree
if debs=$(tools/packaging/deb.sh --no-lintian "$tmp/deb" 2> "$tmp/deblog"); then
	rm -rf "$tmp/di"
	make -s install-userspace DESTDIR="$tmp/di" > /dev/null 2>&1
	out=$(tools/packaging/docpaths.sh $debs -- "$tmp/di")
	ok=$?
	echo "$out"
	result $ok "every path README.md, Documentation/, the man pages and the packaged units and rules name is in a package, make install's tree or the source tree"
else
	if grep -q 'missing:' "$tmp/deblog"; then
		echo "ok $((n + 1)) documented paths # SKIP $(grep -m1 'missing:' "$tmp/deblog")"
		n=$((n + 1))
	else
		sed 's/^/# /' "$tmp/deblog" | tail -n 20
		result 1 "documented paths: deb.sh --no-lintian builds the packages"
	fi
fi
for u in qpistat qpistat-textfile; do
	if ! command -v systemd-analyze > /dev/null; then
		echo "ok $((n + 1)) $u.service exposure # SKIP no systemd-analyze"
		n=$((n + 1))
		continue
	fi
	score=$(systemd-analyze security --offline=true "$tmp/$u.service" 2>&1 |
		sed -n 's/.*Overall exposure level for .*: \([0-9.]*\).*/\1/p')
	awk -v s="$score" 'BEGIN { exit !(s != "" && s <= 2.0) }'
	result $? "$u.service: systemd-analyze security exposure ${score:-?} <= 2.0"
done

# property FILE KEY: the values of KEY= in FILE, one a line
property() { sed -n "s/^$2=//p" "$1"; }
t=$tmp/qpistat-textfile.service
[[ $(property "$t" ReadWritePaths) == "-/var/lib/prometheus/node-exporter" ]] &&
	[[ $(property "$t" ConditionPathIsDirectory) == /var/lib/prometheus/node-exporter ]]
result $? "qpistat-textfile.service: ReadWritePaths=-/var/lib/prometheus/node-exporter (no 226/NAMESPACE without it), skipped by a condition"

q=$tmp/qpistat.service
property "$q" After | grep -qw network-online.target &&
	property "$q" Wants | grep -qw network-online.target
result $? "qpistat.service: After= and Wants=network-online.target"

ok=0
for f in "$q" "$t"; do
	[[ $(property "$f" ExecStartPre) == "+/usr/bin/udevadm settle --timeout=120" ]] &&
		property "$f" After | grep -qw systemd-udev-trigger.service || ok=1
done
result $ok "both units: After=systemd-udev-trigger.service, ExecStartPre=+udevadm settle (after the udev hand-over)"

if ! command -v dkms > /dev/null || [[ $EUID != 0 ]]; then
	echo "ok 20 dkms-install # SKIP needs root and dkms"
	echo "ok 21 dkms-uninstall # SKIP needs root and dkms"
	exit $rc
fi
make -s KDIR="$kdir" KVER="$kver" dkms-uninstall > /dev/null 2>&1
make -s KDIR="$kdir" KVER="$kver" dkms-install > "$tmp/log" 2>&1
ok=$?
dko=$(find "/lib/modules/$kver/updates/dkms" -name 'qpi_uncore.ko*' 2>/dev/null | head -n 1)
[[ $ok == 0 && -n $dko ]] && dkms status qpi_uncore | grep -q "$kver.*installed" &&
	[[ -x /usr/local/sbin/qpi-uncore-takeover && -f /etc/udev/rules.d/60-qpi-uncore.rules ]] &&
	[[ -x /usr/local/bin/qpistat ]]
ok=$?
[[ $ok == 0 ]] || sed 's/^/# /' "$tmp/log" | tail -n 20
result $ok "make dkms-install builds and installs for $kver, with qpistat, qpi-uncore-takeover and its udev rule"
make -s KDIR="$kdir" KVER="$kver" dkms-uninstall > "$tmp/log" 2>&1
[[ -z $(find "/lib/modules/$kver/updates/dkms" -name 'qpi_uncore.ko*' 2>/dev/null) ]] &&
	! dkms status qpi_uncore 2>/dev/null | grep -q . &&
	[[ ! -e /usr/local/sbin/qpi-uncore-takeover && ! -e /etc/udev/rules.d/60-qpi-uncore.rules ]] &&
	[[ ! -e /usr/local/bin/qpistat ]]
result $? "make dkms-uninstall removes it"
exit $rc
