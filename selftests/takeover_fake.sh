# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Sourced by qpi_uncore_takeover.sh: qpi-uncore-takeover against a fake
# sysfs, for what the real one cannot stage (a state between two reads of
# the tool, a missing module).  Needs $TOOL and lib.sh; runs on the host
# too, as root or not:
#   cd selftests && sh -c '. ./lib.sh; TOOL=../tools/takeover/qpi-uncore-takeover
#     ktap_plan 1; . ./takeover_fake.sh; ktap_finish'
# (as root with /run/qpi-uncore-takeover.test-mode present).

F=${TMPDIR:-/tmp}/qpit-fake

KV=$(uname -r)

# fake_init: a fake sysfs with intel_uncore loaded, no function yet;
# qpi_uncore installed for the running kernel
fake_init()
{
	rm -rf "$F"
	mkdir -p "$F/sys/bus/pci/devices" "$F/sys/bus/pci/drivers/snbep_uncore" \
		"$F/sys/bus/pci/drivers/qpi_uncore" "$F/sys/module/intel_uncore" "$F/run" \
		"$F/modules/$KV/updates/dkms"
	echo 0 > "$F/sys/module/intel_uncore/refcnt"
	mkdir -p "$F/proc/1/fd"
	ln -s /dev/null "$F/proc/1/fd/0"
	: > "$F/modules/$KV/updates/dkms/qpi_uncore.ko.xz"
	printf 'kernel/fs/x.ko:\nupdates/dkms/qpi_uncore.ko.xz:\n' > "$F/modules/$KV/modules.dep"
	: > "$F/trace"
}

# fake_fn BDF DEVICE DRIVER [OVERRIDE]: a function, DRIVER - for none
fake_fn()
{
	d=$F/sys/bus/pci/devices/$1
	mkdir -p "$d"
	echo 0x8086 > "$d/vendor"
	echo "$2" > "$d/device"
	echo "${4:-(null)}" > "$d/driver_override"
	if [ "$3" != - ]; then
		ln -s "../../drivers/$3" "$d/driver"
		ln -s "../../devices/$1" "$F/sys/bus/pci/drivers/$3/$1"
	fi
}

# fake_state: driver and driver_override of every function, one line
fake_state()
{
	for d in "$F"/sys/bus/pci/devices/*; do
		drv=-
		[ -e "$d/driver" ] && drv=$(basename "$(readlink "$d/driver")")
		o=$(cat "$d/driver_override")
		# sysfs shows a cleared override as (null), a file as written
		printf '%s %s %s;' "${d##*/}" "$drv" "${o:-(null)}"
	done
}

# fk ARGS: the tool on the fake sysfs; FK_MODPROBE its module loader
# (default false: a fake sysfs must never load a real module)
fk()
{
	QPI_TAKEOVER_SYSFS=$F/sys QPI_TAKEOVER_RUNDIR=$F/run QPI_TAKEOVER_TRACE=$F/trace \
		QPI_TAKEOVER_MODULES=$F/modules QPI_TAKEOVER_PROC=$F/proc \
		QPI_TAKEOVER_MODPROBE=${FK_MODPROBE:-false} "$TOOL" "$@"
}

# fk_as SETPRIV OPTIONS -- ARGS: the tool run by util-linux's setpriv
# (busybox's has no --reuid)
fk_as()
{
	sp=$1
	shift
	opts=
	while [ "$1" != -- ]; do
		opts="$opts $1"
		shift
	done
	shift
	# shellcheck disable=SC2086 # options, one word each
	QPI_TAKEOVER_SYSFS=$F/sys QPI_TAKEOVER_RUNDIR=$F/run QPI_TAKEOVER_TRACE=$F/trace \
		QPI_TAKEOVER_MODULES=$F/modules QPI_TAKEOVER_MODPROBE=${FK_MODPROBE:-false} \
		"$sp" $opts "$TOOL" "$@"
}

# The udev rule runs --boot once per function, so a coldplug starts a dozen
# at once: after the first, the others must find the work done and exit
# before queueing on the lock.
t_begin "fake_boot_when_done_exits_early"
fake_init
mkdir -p "$F/sys/module/qpi_uncore"
fake_fn 0000:7f:08.0 0x3c41 qpi_uncore qpi_uncore
fake_fn 0000:7f:09.0 0x3c42 qpi_uncore qpi_uncore
fake_fn 0000:7f:0e.1 0x3c44 snbep_uncore
fake_fn 0000:7f:13.5 0x3c86 qpi_uncore
fake_fn 0000:7f:08.3 0x3c86 - qpi_uncore
# reserved and unbound, qpi_uncore not loaded: what --boot leaves without it
rmdir "$F/sys/module/qpi_uncore"
rm "$F/sys/bus/pci/devices/0000:7f:0e.1/driver" "$F/sys/bus/pci/drivers/snbep_uncore/0000:7f:0e.1"
rm "$F/sys/bus/pci/devices/0000:7f:08.0/driver" "$F/sys/bus/pci/drivers/qpi_uncore/0000:7f:08.0"
rm "$F/sys/bus/pci/devices/0000:7f:09.0/driver" "$F/sys/bus/pci/drivers/qpi_uncore/0000:7f:09.0"
echo qpi_uncore > "$F/sys/bus/pci/devices/0000:7f:0e.1/driver_override"
rm "$F/sys/bus/pci/devices/0000:7f:13.5/driver" "$F/sys/bus/pci/drivers/qpi_uncore/0000:7f:13.5"
echo qpi_uncore > "$F/sys/bus/pci/devices/0000:7f:13.5/driver_override"
before=$(fake_state)
for i in 1 2 3 4 5; do
	fk --boot || fail "--boot run $i: exit $?"
done
expect_eq "nothing changed" "$(fake_state)" "$before"
expect_eq "five early exits, no lock, no write" "$(sort "$F/trace" | uniq -c | tr -s ' ')" \
	" 5 boot: already done"
# bound to qpi_uncore, loaded: done too
mkdir -p "$F/sys/module/qpi_uncore"
for b in 0000:7f:08.0 0000:7f:09.0 0000:7f:0e.1 0000:7f:13.5 0000:7f:08.3; do
	ln -s ../../drivers/qpi_uncore "$F/sys/bus/pci/devices/$b/driver"
	ln -s "../../devices/$b" "$F/sys/bus/pci/drivers/qpi_uncore/$b"
done
before=$(fake_state)
: > "$F/trace"
fk --boot; fk --boot
expect_eq "bound: nothing changed" "$(fake_state)" "$before"
expect_eq "bound: early exits" "$(paste -sd, - < "$F/trace")" "boot: already done,boot: already done"
# one function still intel_uncore's: not done, the full run under the lock
rm "$F/sys/bus/pci/devices/0000:7f:0e.1/driver" "$F/sys/bus/pci/drivers/qpi_uncore/0000:7f:0e.1"
fake_fn 0000:7f:0e.1 0x3c44 snbep_uncore
: > "$F/trace"
fk --boot 2> /dev/null
grep -qx lock "$F/trace" || fail "with intel_uncore's function left, no lock taken: $(cat "$F/trace")"
grep -qx 'write bus/pci/drivers/snbep_uncore/unbind 0000:7f:0e.1' "$F/trace" ||
	fail "not unbound from snbep_uncore: $(cat "$F/trace")"
t_end

# QPI_TAKEOVER_* are test hooks: root honours them only while the test
# bench's /run/qpi-uncore-takeover.test-mode exists, a process without
# capabilities always (it can harm nothing with them).  QPI_TAKEOVER_LOCKED,
# which skipped the lock, is gone; the module loader hook runs quoted.
t_begin "fake_hooks_only_in_test_mode"
fake_init
fake_fn 0000:7f:08.0 0x3c41 snbep_uncore
fake_fn 0000:7f:08.3 0x3c86 snbep_uncore
printf '#!/bin/sh\necho "$*" >> "%s/modprobe.log"\nexit 1\n' "$F" > "$F/my modprobe"
chmod +x "$F/my modprobe"
QPI_TAKEOVER_LOCKED=1 FK_MODPROBE="$F/my modprobe" fk > "$F/out" 2>&1
expect_eq "exit" "$?" 1
expect_eq "the lock is taken whatever QPI_TAKEOVER_LOCKED says" "$(head -n 1 "$F/trace")" lock
expect_eq "the module loader, quoted" "$(cat "$F/modprobe.log" 2> /dev/null)" qpi_uncore
grep -q "loading qpi_uncore failed" "$F/out" || fail "message: $(cat "$F/out")"
if [ "$(id -u)" = 0 ]; then
	mark=/run/qpi-uncore-takeover.test-mode
	rel=/run/qpi-uncore-released
	sp=/usr/libexec/qpivm/setpriv
	[ -x $sp ] || sp=$(command -v setpriv)
	fake_init
	fake_fn 0000:7f:08.0 0x3c41 snbep_uncore
	before=$(fake_state)
	# test mode off: the tool reads the real /sys and /run, where a
	# release makes --boot do nothing, whatever this machine has
	had_rel=0
	[ -e $rel ] && had_rel=1
	: > $rel
	rm -f $mark
	FK_MODPROBE="$F/my modprobe" fk --boot > "$F/out" 2>&1
	rc=$?
	# root without capabilities owns the sysfs files all the same
	FK_MODPROBE="$F/my modprobe" fk_as "$sp" --inh-caps=-all --bounding-set=-all -- --boot \
		>> "$F/out" 2>&1
	rc=$rc$?
	: > $mark
	[ $had_rel = 1 ] || rm -f $rel
	expect_eq "test mode off: exit, root and root without capabilities" "$rc" 00
	expect_eq "test mode off: fake sysfs untouched" "$(fake_state)" "$before"
	[ -e "$F/sys/bus/pci/drivers/snbep_uncore/unbind" ] && fail "test mode off: unbound in the fake sysfs"
	expect_eq "test mode off: no trace" "$(cat "$F/trace")" ""
	expect_eq "test mode off: silent" "$(cat "$F/out")" ""
	# without capabilities the hooks work: the hand-over in the fake sysfs
	chown -R 65534:65534 "$F"
	FK_MODPROBE="$F/my modprobe" fk_as "$sp" --reuid=65534 --regid=65534 --clear-groups -- --boot \
		> "$F/out" 2>&1
	rc=$?
	expect_eq "no capabilities: exit" "$rc" 0
	[ $rc = 0 ] || fail "output: $(cat "$F/out")"
	expect_eq "no capabilities: marked and unbound" "$(grep write "$F/trace" | paste -sd, -)" \
		"write bus/pci/devices/0000:7f:08.0/driver_override qpi_uncore,write bus/pci/drivers/snbep_uncore/unbind 0000:7f:08.0"
fi
t_end

# No qpi_uncore.ko for the running kernel (a DKMS build that failed after a
# kernel upgrade): nothing is reserved for it, and intel_uncore keeps the
# functions and their PMUs.
t_begin "fake_nothing_claimed_without_the_module"
fake_init
fk --installed
expect_eq "installed (updates/dkms, xz)" "$?" 0
rm "$F/modules/$KV/updates/dkms/qpi_uncore.ko.xz"
fk --installed
expect_eq "in modules.dep, file gone" "$?" 1
printf 'kernel/fs/x.ko:\nupdates/dkms/xqpi_uncore.ko:\n' > "$F/modules/$KV/modules.dep"
: > "$F/modules/$KV/updates/dkms/xqpi_uncore.ko"
fk --installed
expect_eq "another module's name ending in qpi_uncore" "$?" 1
rm "$F/modules/$KV/modules.dep"
fk --installed
expect_eq "no modules.dep" "$?" 1
mkdir "$F/sys/module/qpi_uncore"
fk --installed
expect_eq "loaded (insmod by hand)" "$?" 0
rmdir "$F/sys/module/qpi_uncore"
fake_fn 0000:7f:08.0 0x3c41 snbep_uncore
fake_fn 0000:7f:08.3 0x3c86 snbep_uncore
before=$(fake_state)
fk --boot > "$F/out" 2>&1
expect_eq "--boot: exit" "$?" 0
expect_eq "--boot: silent" "$(cat "$F/out")" ""
expect_eq "--boot: nothing written" "$(cat "$F/trace")" "boot: qpi_uncore is not installed"
expect_eq "--boot: intel_uncore keeps them" "$(fake_state)" "$before"
: > "$F/trace"
fk > "$F/out" 2>&1
expect_eq "by hand: exit" "$?" 1
expect_eq "by hand: message" "$(cat "$F/out")" \
	"qpi-uncore-takeover: refused: qpi_uncore is not installed for this kernel (no qpi_uncore.ko in $F/modules/$KV/modules.dep), and intel_uncore keeps the functions until it is; install it (make install, or dkms autoinstall after a failed DKMS build) and run again"
expect_eq "by hand: nothing written" "$(grep -v '^lock$' "$F/trace")" ""
expect_eq "by hand: intel_uncore keeps them" "$(fake_state)" "$before"
t_end

# fake_race SCRIPT: what QPI_TAKEOVER_RACE runs between the marks and the
# second check
fake_race()
{
	printf '#!/bin/sh\n%s\n' "$1" > "$F/race"
	chmod +x "$F/race"
}

writes() { grep '^write' "$F/trace" | paste -sd, -; }

# Between the first check and the unbinds an event can be opened on one of
# intel_uncore's PMUs: the second check, after the marks, sees it and puts
# every driver_override back as it found it.
t_begin "fake_second_check_rolls_back"
fake_init
fake_fn 0000:7f:08.0 0x3c41 snbep_uncore
fake_fn 0000:7f:08.3 0x3c86 snbep_uncore qpi_uncore
fake_fn 0000:7f:09.0 0x3c42 -
before=$(fake_state)
fake_race "echo 1 > $F/sys/module/intel_uncore/refcnt"
QPI_TAKEOVER_RACE=$F/race fk > "$F/out" 2>&1
expect_eq "event opened: exit" "$?" 1
grep -q "^qpi-uncore-takeover: refused: intel_uncore has 1 references, perf events open on its PMUs (the kernel does not say which), .*, opened while the functions were being marked; nothing handed over, run again\$" "$F/out" ||
	fail "event opened: message: $(cat "$F/out")"
expect_eq "event opened: marked, then put back, no unbind" "$(writes)" \
	"write bus/pci/devices/0000:7f:08.0/driver_override qpi_uncore,write bus/pci/devices/0000:7f:08.3/driver_override qpi_uncore,write bus/pci/devices/0000:7f:09.0/driver_override qpi_uncore,write bus/pci/devices/0000:7f:08.0/driver_override ,write bus/pci/devices/0000:7f:09.0/driver_override "
expect_eq "event opened: as before" "$(fake_state)" "$before"
# intel_uncore binds a function meanwhile
echo 0 > "$F/sys/module/intel_uncore/refcnt"
fake_race "ln -s ../../drivers/snbep_uncore $F/sys/bus/pci/devices/0000:7f:09.0/driver"
: > "$F/trace"
QPI_TAKEOVER_RACE=$F/race fk > "$F/out" 2>&1
expect_eq "function bound: exit" "$?" 1
expect_eq "function bound: message" "$(cat "$F/out")" \
	"qpi-uncore-takeover: refused: intel_uncore's functions changed while they were being marked; nothing handed over, run again"
rm "$F/sys/bus/pci/devices/0000:7f:09.0/driver"
expect_eq "function bound: as before" "$(fake_state)" "$before"
grep -q unbind "$F/trace" && fail "function bound: unbound: $(writes)"
# nothing happens meanwhile: handed over
fake_race true
: > "$F/trace"
QPI_TAKEOVER_RACE=$F/race fk --boot > "$F/out" 2>&1
expect_eq "quiet: exit" "$?" 0
expect_eq "quiet: marked and unbound" "$(writes)" \
	"write bus/pci/devices/0000:7f:08.0/driver_override qpi_uncore,write bus/pci/devices/0000:7f:08.3/driver_override qpi_uncore,write bus/pci/devices/0000:7f:09.0/driver_override qpi_uncore,write bus/pci/drivers/snbep_uncore/unbind 0000:7f:08.0,write bus/pci/drivers/snbep_uncore/unbind 0000:7f:08.3"
t_end

# Built into the kernel, intel_uncore keeps no count of its events, and
# --boot has no operator to say --force: it wants no perf event open in any
# process, before the marks and after them.
t_begin "fake_builtin_boot_checks_perf_descriptors"
fake_init
rm "$F/sys/module/intel_uncore/refcnt"
fake_fn 0000:7f:08.0 0x3c41 snbep_uncore
fake_fn 0000:7f:08.3 0x3c86 snbep_uncore
before=$(fake_state)
mkdir -p "$F/proc/4242/fd"
ln -s 'anon_inode:[perf_event]' "$F/proc/4242/fd/5"
ln -s 'anon_inode:[perf_event]' "$F/proc/4242/fd/6"
fk --boot > "$F/out" 2>&1
expect_eq "open before: exit" "$?" 1
expect_eq "open before: message" "$(cat "$F/out")" \
	"qpi-uncore-takeover: refused: intel_uncore is built into this kernel, which keeps no count of the perf events open on its PMUs, and processes 4242 hold perf events (on which PMU, the kernel does not say); close them (perf, monitoring agents) and run again"
expect_eq "open before: nothing written" "$(writes)" ""
expect_eq "open before: as before" "$(fake_state)" "$before"
rm -r "$F/proc/4242"
fake_race "mkdir -p $F/proc/77/fd; ln -s 'anon_inode:[perf_event]' $F/proc/77/fd/3"
QPI_TAKEOVER_RACE=$F/race fk --boot > "$F/out" 2>&1
expect_eq "opened meanwhile: exit" "$?" 1
grep -q "processes 77 hold perf events (on which PMU, the kernel does not say), opened while the functions were being marked; nothing handed over, run again" "$F/out" ||
	fail "opened meanwhile: message: $(cat "$F/out")"
expect_eq "opened meanwhile: as before" "$(fake_state)" "$before"
grep -q unbind "$F/trace" && fail "opened meanwhile: unbound: $(writes)"
rm -r "$F/proc/77"
: > "$F/trace"
fk --boot > "$F/out" 2>&1
expect_eq "none open: exit" "$?" 0
grep -q 'unbind 0000:7f:08.3' "$F/trace" || fail "none open: not unbound: $(writes)"
t_end
