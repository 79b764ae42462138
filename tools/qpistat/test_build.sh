#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of qpistat's build (make test runs it after building
# qpistat): the builder's CPPFLAGS, CFLAGS and LDFLAGS reach the compiler,
# from the command line and from the environment (dpkg-buildflags); -Werror
# only with WERROR=1; and the binary is hardened: PIE, full RELRO
# (BIND_NOW), stack protector, FORTIFY, stack clash protection and
# control-flow protection where the compiler has them, and devscripts'
# hardening-check passes on it.  Flat KTAP, one line per case.
set -uo pipefail
# a fresh make each time, not one inheriting make test's WERROR=1
unset MAKEFLAGS MFLAGS MAKELEVEL WERROR CPPFLAGS CFLAGS LDFLAGS
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin=$here/qpistat
# shellcheck source-path=SCRIPTDIR source=../ktap.sh
. "$here/../ktap.sh"

# the compile line make would run for qpistat, with ARGS
line() {
	make -s -n -B -C "$here" "$@" qpistat | tr -s " "
}

echo "KTAP version 1"

l=$(line CPPFLAGS=-DQPI_CPP_MARK CFLAGS='-O1 -DQPI_C_MARK' LDFLAGS=-Wl,-z,noexecstack)
r=0
for want in -DQPI_CPP_MARK '-O1 -DQPI_C_MARK' -Wl,-z,noexecstack \
	-fstack-protector-strong '-U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=2' -fPIE -pie \
	-Wl,-z,relro,-z,now -fstack-clash-protection -fcf-protection -Wl,-z,ibt,-z,shstk; do
	[[ $l == *" $want"* ]] || { echo "# no '$want' in: $l"; r=1; }
done
[[ $l == *-Werror* ]] && { echo "# -Werror without WERROR=1: $l"; r=1; }
# the builder's come after the defaults: theirs win
[[ $l == *"-fcf-protection -Wall -Wextra -O1 -DQPI_C_MARK"* ]] || { echo "# CFLAGS not last: $l"; r=1; }
result $r "make CPPFLAGS=... CFLAGS=... LDFLAGS=...: all three on the compile line, after the hardening; no -Werror"

l=$(CPPFLAGS=-DQPI_ENV_CPP CFLAGS='-O2 -DQPI_ENV_C' LDFLAGS=-Wl,--as-needed line)
r=0
for want in -DQPI_ENV_CPP '-O2 -DQPI_ENV_C' -Wl,--as-needed; do
	[[ $l == *" $want"* ]] || { echo "# no '$want' in: $l"; r=1; }
done
result $r "CPPFLAGS, CFLAGS and LDFLAGS from the environment reach the compile line"

if command -v dpkg-buildflags > /dev/null; then
	l=$(eval "$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --export=sh)" && line)
	r=0
	for f in CPPFLAGS CFLAGS LDFLAGS; do
		v=$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get $f)
		[[ $l == *" $v"* ]] || { echo "# dpkg-buildflags' $f '$v' not in: $l"; r=1; }
	done
	# dpkg-buildflags picks the FORTIFY level: no second definition
	[[ $l == *-U_FORTIFY_SOURCE* ]] && { echo "# a second _FORTIFY_SOURCE: $l"; r=1; }
	result $r "dpkg-buildflags (hardening=+all) reach the compile line whole, and pick the FORTIFY level"
else
	result 0 "dpkg-buildflags reach the compile line # SKIP no dpkg-buildflags"
fi

# The builder's choice of control-flow protection comes last and wins;
# the binary is then not marked IBT and SHSTK behind its back.
l=$(line CFLAGS='-O2 -fcf-protection=none -fno-stack-clash-protection')
r=0
[[ $l == *" -fcf-protection -Wall -Wextra -O2 -fcf-protection=none -fno-stack-clash-protection"* ]] ||
	{ echo "# the builder's -fcf-protection=none, -fno-stack-clash-protection not last: $l"; r=1; }
[[ $l == *-z,ibt* || $l == *-z,shstk* ]] && { echo "# marked IBT/SHSTK despite -fcf-protection=none: $l"; r=1; }
result $r "CFLAGS=-fcf-protection=none -fno-stack-clash-protection: the builder's flags last, no -z ibt,-z shstk"

# A compiler without them (here one that refuses both options) builds
# without them, with the rest of the hardening
cc=$(mktemp -d)
cat > "$cc/cc" << 'EOT'
#!/bin/sh
for a; do
	case $a in -fstack-clash-protection | -fcf-protection*) echo "cc: unknown option $a" >&2; exit 1 ;; esac
done
exec cc "$@"
EOT
chmod 755 "$cc/cc"
l=$(line CC="$cc/cc")
rm -rf "$cc"
r=0
[[ $l == *-fstack-clash-protection* || $l == *-fcf-protection* || $l == *-z,ibt* ]] &&
	{ echo "# options the compiler refuses: $l"; r=1; }
[[ $l == *" -fstack-protector-strong -fPIE -Wall"* && $l == *" -pie -Wl,-z,relro,-z,now -lm"* ]] ||
	{ echo "# not the rest of the hardening: $l"; r=1; }
result $r "a compiler without -fstack-clash-protection and -fcf-protection: neither asked for, the rest of the hardening kept"

l=$(line WERROR=1)
[[ $l == *" -Werror"* ]]
result $? "make WERROR=1 (make check) adds -Werror"

# the built binary, with the defaults
if ! command -v readelf > /dev/null; then
	result 0 "hardened binary # SKIP no readelf"
	echo "1..$n"
	exit 0
fi
r=0
readelf -h "$bin" | grep -q 'Type: *DYN' || { echo "# not PIE (ELF type)"; r=1; }
readelf -d "$bin" | grep -q 'FLAGS_1.*PIE' || { echo "# no PIE in FLAGS_1"; r=1; }
result $r "qpistat is PIE"
readelf -lW "$bin" | grep -q GNU_RELRO
result $? "qpistat has a RELRO segment"
readelf -d "$bin" | grep -qE '\(FLAGS\).*BIND_NOW|FLAGS_1.*NOW'
result $? "qpistat binds immediately (BIND_NOW): full RELRO"
syms=$(readelf --dyn-syms -W "$bin")
grep -q ' __stack_chk_fail' <<< "$syms"
result $? "qpistat has the stack protector (__stack_chk_fail)"
chk=$(grep -oE ' __[a-z_]+_chk(@[A-Z_.0-9]+)?' <<< "$syms" | grep -v __stack_chk | sort -u)
echo "# fortified: $(tr "\n" " " <<< "$chk")"
[[ -n $chk ]]
result $? "qpistat is fortified (__*_chk functions)"
# The options of the compiler, as its debug information records them:
# hardening-check cannot see stack clash protection in a binary without
# a frame over four pages (gcc probes each page of a smaller one inline,
# and hardening-check looks for the probe loop only)
cc_line=$(readelf --debug-dump=info "$bin" 2> /dev/null | grep -m 1 DW_AT_producer)
r=0
if [[ -n $(make -s -n -B -C "$here" qpistat | grep -o -- -fstack-clash-protection) ]]; then
	[[ $cc_line == *-fstack-clash-protection* ]] || r=1
	[[ $(uname -m) != x86_64 || $cc_line == *-fcf-protection* ]] || r=1
	((r == 0)) || echo "# compiled as: $cc_line"
	result $r "qpistat is built with -fstack-clash-protection and (x86) -fcf-protection (DW_AT_producer)"
else
	result 0 "qpistat is built with stack clash protection # SKIP the compiler has no -fstack-clash-protection"
fi
if [[ $(uname -m) == x86_64 ]]; then
	readelf -n "$bin" | grep -q 'x86 feature: IBT, SHSTK'
	result $? "qpistat is marked for IBT and shadow stacks (.note.gnu.property)"
fi
# devscripts' view of the same, all of it
if command -v hardening-check > /dev/null; then
	hardening-check "$bin" | sed 's/^/# /'
	hardening-check -q "$bin" > /dev/null
	result $? "hardening-check qpistat"
else
	result 0 "hardening-check qpistat # SKIP no hardening-check (apt-get install devscripts)"
fi
echo "1..$n"
exit "$rc"
