#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kselftest-style runner: runs the named tests (default: TEST_PROGS of the
# Makefile), prefixes their KTAP output with "# " and prints one result line
# per test.  Exit status 0 only if every test passed or skipped.
cd "$(dirname "$0")" || exit 1

tests="$*"
if [ -z "$tests" ]; then
	tests=$(awk '/^TEST_PROGS[ \t]*:=/ { f = 1; sub(/^TEST_PROGS[ \t]*:=/, "") }
		     f { c = sub(/\\$/, ""); printf "%s ", $0; if (!c) exit }' Makefile)
fi
# QPI_SKIP_TESTS: names to leave out (run-vm --skip)
for s in ${QPI_SKIP_TESTS:-}; do
	tests=$(echo " $tests " | sed "s/ $s / /")
done

n=0
for t in $tests; do n=$((n + 1)); done
echo "TAP version 13"
echo "1..$n"

i=0
rc=0
for t in $tests; do
	i=$((i + 1))
	echo "# selftests: qpi_uncore: $t"
	if [ ! -x "./$t" ]; then
		echo "not ok $i selftests: qpi_uncore: $t # no such test"
		rc=1
		continue
	fi
	t0=$(cut -d' ' -f1 /proc/uptime)
	{ timeout "${QPI_TEST_TIMEOUT:-600}" "./$t" 2>&1; echo "$?" > /tmp/ksft.rc; } |
		sed 's/^/# /'
	trc=$(cat /tmp/ksft.rc)
	# where a stage's time goes, for keeping make check short
	echo "# time: $t $(awk -v a="$t0" '{ printf "%.1f", $1 - a }' /proc/uptime) s"
	case "$trc" in
	0) echo "ok $i selftests: qpi_uncore: $t" ;;
	4) echo "ok $i selftests: qpi_uncore: $t # SKIP" ;;
	*) echo "not ok $i selftests: qpi_uncore: $t # exit=$trc"; rc=1 ;;
	esac
done
exit $rc
