# SPDX-License-Identifier: GPL-2.0
#
# qpi_uncore: perf PMUs for the Intel Xeon uncore QPI and R3QPI boxes, and
# qpisim, the simulated uncore the test bench proves them on.
#
#   make [KDIR=<kernel build dir>]   build the modules (default: the running
#                                    kernel's, else the newest Debian headers)
#   make check                       every test: style, host, VM; ends with
#                                    "N passed, N failed"
#   make demo                        boot a simulated 2-socket machine and
#                                    count QPI traffic with perf
KDIR ?= $(shell tools/vm/kdir.sh)

all: modules tools

modules:
	@test -n "$(KDIR)" || { echo "no kernel build dir; run tools/vm/deps.sh or pass KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

tools:
	$(MAKE) -C selftests
	$(MAKE) -C tools/qpistat

unittest:
	$(MAKE) -C tools/unittest run

checkpatch:
	tools/checkpatch.sh

sparse:
	$(MAKE) -C $(KDIR) M=$(CURDIR) C=2 modules

check:
	tools/check.sh

demo:
	tools/demo.sh

clean:
	@test -z "$(KDIR)" || $(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C selftests clean
	$(MAKE) -C tools/qpistat clean
	$(MAKE) -C tools/unittest clean

.PHONY: all modules tools unittest checkpatch sparse check demo clean
