# SPDX-License-Identifier: GPL-2.0
#
# qpi_uncore: perf PMUs for the Intel Xeon uncore QPI and R3QPI boxes, and
# qpisim, the simulated uncore the test bench proves them on.
#
#   make [KDIR=<kernel build dir>]   build the modules (default: the running
#                                    kernel's, else the newest Debian headers)
#   make check                       every test: style, host, VM, the kernel
#                                    matrix; ends with "N passed, N failed"
#   make check-quick [TESTS="t.sh"]  the edit loop's: W=1 build, host tests,
#                                    one 6.1 guest suite; a few minutes
#   make check-kernels KERNELS="..." the kernel matrix, or some of it
#   make demo                        boot a simulated 2-socket machine and
#                                    count QPI traffic with perf
#   make fuzz                        the syscall fuzzer, longer
#   make check-debug                 the selftests on a KASAN/lockdep kernel
#   make bench                       cost against intel_uncore
#   make install | dkms-install      qpi_uncore.ko, qpistat, qpi-uncore-takeover
#                                    with its udev rule, modprobe.d
KDIR ?= $(shell tools/vm/kdir.sh)
# the release the build dir belongs to: /lib/modules/<release>/build or
# Debian's /usr/src/linux-headers-<release>
KVER ?= $(patsubst linux-headers-%,%,$(notdir $(patsubst %/build,%,$(KDIR))))
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
PREFIX ?= /usr/local
MODDIR = $(DESTDIR)/lib/modules/$(KVER)/updates

all: modules tools

modules:
	@test -n "$(KDIR)" || { echo "no kernel build dir; run tools/vm/deps.sh or pass KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

tools:
	$(MAKE) -C selftests
	$(MAKE) -C tools/qpistat
	$(MAKE) -C tools/bench

unittest:
	$(MAKE) -C tools/unittest run

checkpatch:
	tools/checkpatch.sh

# sparse over every source, with the flags of make check's build (W=1,
# the test hooks), so that after that build nothing is compiled again
sparse:
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 C=2 QPIU_TEST_HOOKS=1 modules

check:
	tools/check.sh

# The edit loop's check, a few minutes: the modules with W=1 and the user
# tools, the host tests, one 6.1 guest suite on SNB-EP (TESTS="...", default
# qpi_uncore_count.sh); ends with "N passed, N failed" too.
TESTS ?=
check-quick:
	QPI_QUICK_TESTS="$(TESTS)" tools/check.sh --quick

# The kernel matrix alone, or part of it: make check-kernels KERNELS="5.10 7.2"
# (names: tools/kernels/kernel.sh; default: all but the host's 6.1, which
# make check tests in stages of its own).
KERNELS ?=
check-kernels:
	tools/check.sh --kernels $(KERNELS)

demo:
	tools/demo.sh

# Config accesses, read latency and CPU cost against intel_uncore; writes
# Documentation/benchmarks.rst.
bench: modules tools
	tools/bench/bench.sh

# Every selftest on a KASAN/lockdep/kmemleak/KUnit kernel built from
# linux-source-6.1 (about 30 min the first time, then cached), then the
# sampling and hand-over selftests on a PREEMPT_RT lockdep kernel from the
# newest trixie-backports source; TIERS=debug or TIERS=rt runs one tier.
check-debug:
	tools/debug-kernel/check.sh

# The syscall fuzzer for longer than make check runs it.
FUZZ_CALLS ?= 200000
fuzz:
	tools/vm/run-vm --platform ivbep --timeout 3000 --tests qpi_uncore_fuzz.sh \
		--env QPI_FUZZ_CALLS=$(FUZZ_CALLS) --env "QPI_FUZZ_SEEDS=1 2 3 4 5 6 7 8"

# The takeover tool, its udev rule and the modprobe.d file: what lets
# qpi_uncore live beside intel_uncore (make install and dkms-install).
RULES = $(DESTDIR)/etc/udev/rules.d/60-qpi-uncore.rules
# qpistat --listen as a systemd service, and the Prometheus rules for it
UNIT = $(DESTDIR)/etc/systemd/system/qpistat.service
# qpistat --textfile for node_exporter's textfile collector
TEXTFILE_UNIT = $(DESTDIR)/etc/systemd/system/qpistat-textfile.service
# the target both are wanted by, which udev pulls on a machine with QPI
TARGET = $(DESTDIR)/etc/systemd/system/qpi-pmon.target
QPISTAT_RULES = $(DESTDIR)/etc/udev/rules.d/60-qpistat.rules
# qpistat(1), which the units name, and the manual they point to
MAN1 = $(DESTDIR)$(PREFIX)/share/man/man1/qpistat.1
DOCDIR = $(PREFIX)/share/doc/qpistat
MANUAL = $(DESTDIR)$(DOCDIR)/qpistat.rst
# the Prometheus rules, where the qpistat package has them under /usr
PROMRULES = $(DESTDIR)$(PREFIX)/share/qpistat/prometheus/qpi.rules.yml
# the Grafana dashboard over the exporter's metrics, to import
DASHBOARD = $(DESTDIR)$(PREFIX)/share/qpistat/grafana/qpi-dashboard.json
# What the running system is told (systemd, udev): by default only when
# installing into it, not into a DESTDIR; the tests set LIVE=1 and point
# SYSTEMCTL and UDEVADM at fakes that log what they are asked.
LIVE ?= $(if $(DESTDIR),,1)
SYSTEMCTL ?= systemctl
UDEVADM ?= udevadm
# tell SYSTEMCTL|UDEVADM ARGS: run it if LIVE and present; never fails
tell = test -z "$(LIVE)" || ! command -v $(1) > /dev/null || $(1) $(2) || true
install-userspace:
	$(MAKE) -C tools/qpistat qpistat
	install -D -m 755 tools/qpistat/qpistat $(DESTDIR)$(PREFIX)/bin/qpistat
	install -D -m 755 tools/takeover/qpi-uncore-takeover \
		$(DESTDIR)$(PREFIX)/sbin/qpi-uncore-takeover
	install -D -m 644 tools/packaging/qpi_uncore.conf $(DESTDIR)/etc/modprobe.d/qpi_uncore.conf
	mkdir -p $(dir $(RULES))
	sed 's|@SBINDIR@|$(PREFIX)/sbin|' tools/packaging/60-qpi-uncore.rules > $(RULES)
	sed -e 's|@UDEVRULESDIR@|/etc/udev/rules.d|' -e 's|@DOCDIR@|$(DOCDIR)|' \
		tools/packaging/60-qpistat.rules > $(QPISTAT_RULES)
	$(call tell,$(UDEVADM),control --reload)
	mkdir -p $(dir $(UNIT))
	for u in qpistat.service qpistat-textfile.service qpi-pmon.target; do \
		sed -e 's|@BINDIR@|$(PREFIX)/bin|' -e 's|@DOCDIR@|$(DOCDIR)|' \
			-e 's|@UDEVRULESDIR@|/etc/udev/rules.d|' tools/packaging/$$u \
			> $(DESTDIR)/etc/systemd/system/$$u || exit 1; \
	done
	$(call tell,$(SYSTEMCTL),daemon-reload)
	install -D -m 644 tools/prometheus/qpi.rules.yml $(PROMRULES)
	install -D -m 644 tools/prometheus/qpi-dashboard.json $(DASHBOARD)
	install -D -m 644 tools/packaging/deb/qpistat.1 $(MAN1)
	install -D -m 644 Documentation/qpistat.rst $(MANUAL)

# qpi_uncore.ko and the above; not qpisim, a test tool.
install: modules tools install-userspace
	@test -n "$(KVER)" || { echo "cannot tell the kernel release of $(KDIR); pass KVER=" >&2; exit 1; }
	install -D -m 644 drivers/qpi_uncore/qpi_uncore.ko $(MODDIR)/qpi_uncore.ko
	test -n "$(DESTDIR)" || depmod -a $(KVER)

# The units are stopped and disabled before their files go, and systemd
# and udev are told after: no exporter left running a deleted binary, no
# rule cached by udevd that runs a deleted tool.
uninstall-userspace:
	$(call tell,$(SYSTEMCTL),disable --now qpistat.service qpistat-textfile.service)
	rm -f $(DESTDIR)$(PREFIX)/bin/qpistat $(DESTDIR)/etc/modprobe.d/qpi_uncore.conf \
	      $(DESTDIR)$(PREFIX)/sbin/qpi-uncore-takeover $(RULES) $(UNIT) $(TEXTFILE_UNIT) \
	      $(TARGET) $(QPISTAT_RULES) $(PROMRULES) $(DASHBOARD) $(MAN1) $(MANUAL)
	rmdir $(dir $(PROMRULES)) $(dir $(DASHBOARD)) $(DESTDIR)$(PREFIX)/share/qpistat \
		$(DESTDIR)$(DOCDIR) 2> /dev/null || true
	$(call tell,$(SYSTEMCTL),daemon-reload)
	$(call tell,$(UDEVADM),control --reload)

uninstall: uninstall-userspace
	rm -f $(MODDIR)/qpi_uncore.ko
	test -n "$(DESTDIR)" || depmod -a $(KVER)

# DKMS rebuilds the module for every kernel installed later.
DKMS_SRC = /usr/src/qpi_uncore-$(VERSION)
dkms-install:
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)
	cp -a Kbuild Makefile dkms.conf drivers include $(DKMS_SRC)/
	mkdir -p $(DKMS_SRC)/tools/vm
	cp -a tools/vm/kdir.sh tools/vm/kver.sh $(DKMS_SRC)/tools/vm/
	dkms add qpi_uncore/$(VERSION)
	dkms build qpi_uncore/$(VERSION) -k $(KVER)
	dkms install qpi_uncore/$(VERSION) -k $(KVER)
	$(MAKE) install-userspace DESTDIR=

dkms-uninstall:
	-dkms remove qpi_uncore/$(VERSION) --all
	rm -rf $(DKMS_SRC)
	$(MAKE) uninstall-userspace DESTDIR=

# The Debian packages qpi-uncore-dkms (Architecture: all: the module's
# source for DKMS, no qpisim, qpi-uncore-takeover, its udev rule and the
# modprobe.d softdep) and qpistat (Architecture: any: the tool, its man
# page, both units, the Prometheus rules), built in .vm/deb, lintian
# clean.  make deb installs nothing: it names the missing build tools and
# stops; make deb-deps installs them (apt-get, as root).
# deb-test (not part of make check: about 40 minutes under TCG):
#  - the DKMS round trip in the build root of each kernel of DEB_KERNELS;
#  - the dpkg install in a busybox guest of DEB_GUEST (default: newest,
#    else 6.12), where DKMS builds it and perf counts with it;
#  - both packages installed with apt under systemd as PID 1 in a Debian
#    bookworm guest of its 6.1 kernel, rebooted, used and purged
#    (tools/packaging/deb-systemd.sh).
DEB_KERNELS ?= 5.10 6.1 6.12 newest
DEB_GUEST ?=
DEB_BUILD_DEPS = dpkg-dev debhelper dh-dkms lintian devscripts gcc libc6-dev make
deb:
	tools/packaging/deb.sh

deb-deps:
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(DEB_BUILD_DEPS)

deb-test:
	@debs=$$(tools/packaging/deb.sh) || exit 1; rc=0; \
	deb=$$(echo "$$debs" | grep '/qpi-uncore-dkms_'); \
	for k in $(DEB_KERNELS); do \
		QPI_DEB=$$deb tools/packaging/dkms-build.sh $$k || rc=1; \
	done; \
	QPI_DEB=$$deb tools/packaging/deb-guest.sh $(DEB_GUEST) || rc=1; \
	QPI_DEBS="$$debs" tools/packaging/deb-systemd.sh || rc=1; \
	exit $$rc

clean:
	@test -z "$(KDIR)" || $(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C selftests clean
	$(MAKE) -C tools/qpistat clean
	$(MAKE) -C tools/bench clean
	$(MAKE) -C tools/unittest clean

.PHONY: all modules tools unittest checkpatch sparse check check-quick check-kernels \
	check-debug demo fuzz bench clean \
	install install-userspace uninstall uninstall-userspace dkms-install dkms-uninstall \
	deb deb-deps deb-test
