#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# perf's own event tables (jaketown, ivytown, ...) against our PMUs: every
# UNC_Q_* and UNC_R3_* event perf knows for this CPU has an alias of ours
# with the same encoding, opens on our PMUs, and programs the control value
# our alias stands for.
. "$(dirname "$0")/lib.sh"

ktap_plan 3

qpiu_unload
expect_ok "load qpisim" qsim "$PLATFORM" qpi_ports=2 r3qpi_links=2 sockets=2
expect_ok "load qpi_uncore" qpiu_load

# encode "event=0x102,umask=0x08": the control value (with en and rst) the
# driver writes for it
encode()
{
	echo "$1" | awk -F, '{ ev = 0; um = 0
		for (i = 1; i <= NF; i++) { split($i, kv, "=")
			v = kv[2]; n = 0; sub(/^0x/, "", v)
			for (j = 1; j <= length(v); j++)
				n = n * 16 + index("0123456789abcdef", substr(tolower(v), j, 1)) - 1
			if (kv[1] == "event") ev = n; else if (kv[1] == "umask") um = n }
		printf "0x%08x\n", (ev % 256) + int(ev / 256) % 2 * 2097152 + um * 256 + 4194304 + 131072 }'
}

perf list --details 2>/dev/null | awk '
	/^  unc_(q|r3)_/ { name = $1; next }
	name && /uncore_(qpi|r3qpi)_[0-9]+\// {
		split($1, p, "/"); print name, p[1], p[2]; name = "" }' > /tmp/perfev
nq=$(grep -c '^unc_q_' /tmp/perfev)
nr=$(grep -c '^unc_r3_' /tmp/perfev)
echo "# perf knows $nq QPI and $nr R3QPI events on this CPU"

t_begin "every_perf_event_has_our_alias"
[ "$nq" -gt 0 ] && [ "$nr" -gt 0 ] || fail "perf lists no uncore QPI/R3QPI events"
bad=0
while read -r name pmu enc; do
	alias=${name#unc_q_}
	alias=${alias#unc_r3_}
	kind=${pmu%_*}
	f=$PMUS/${kind}_0/events/$alias
	if [ ! -f "$f" ]; then
		fail "$name: no alias $kind/$alias"
		bad=$((bad + 1))
	elif [ "$(encode "$(cat "$f")")" != "$(encode "$enc")" ]; then
		fail "$name: perf says $enc, our alias $(cat "$f")"
		bad=$((bad + 1))
	fi
done < /tmp/perfev
expect_num "mismatches" "$bad" 0
t_end

t_begin "perf_names_program_our_control_values"
# QPI: four per run fill one port's counters in order; R3QPI: one per run.
checked=0
grep '^unc_q_' /tmp/perfev > /tmp/perfq
grep '^unc_r3_' /tmp/perfev > /tmp/perfr
run_batch() # FUNCTION-BDF NAMES...
{
	f=$1
	shift
	args=""
	for n in "$@"; do args="$args -e $n"; done
	echo clear > "$DBG/log"
	# shellcheck disable=SC2086 # a word list
	perf stat -a -x, $args true > /tmp/perfout 2>&1 ||
		fail "perf stat $args: $(head -c 200 /tmp/perfout)"
	i=0
	for n in "$@"; do
		enc=$(awk -v n="$n" '$1 == n { print $3 }' /tmp/perfev)
		want=$(encode "$enc")
		off=$(printf '0x%03x' $((0xd8 + 4 * i)))
		grep -q "$f where=$off size=4 val=$want" "$DBG/log" ||
			fail "$n: no write of $want to $f $off"
		checked=$((checked + 1))
		i=$((i + 1))
	done
}
set --
while read -r name pmu enc; do
	set -- "$@" "$name"
	if [ $# -eq 4 ]; then
		run_batch 7f:08.2 "$@"
		set --
	fi
done < /tmp/perfq
[ $# -gt 0 ] && run_batch 7f:08.2 "$@"
while read -r name pmu enc; do
	run_batch 7f:13.5 "$name"
done < /tmp/perfr
expect_num "events checked" "$checked" $((nq + nr))
t_end

t_begin "raw_configs_of_existing_tools"
# PCM's perf backend passes raw configs with the enable bit; libpfm4 without.
qperf <<EOT
open pcm uncore_qpi_0 0x00400102 socket=0
open pfm uncore_qpi_0 0x00000102 socket=0
open pcmx uncore_qpi_0 0x00600802 socket=0
inject event socket=0 box=qpi0 event=0x02 umask=0x01 count=21
inject event socket=0 box=qpi0 event=0x02 ext=1 umask=0x08 count=13
read pcm
read pfm
read pcmx
EOT
expect_num "PCM-style raw config" "$(val pcm)" 21
expect_num "libpfm4-style raw config" "$(val pfm)" 21
expect_num "PCM-style with ev_sel_ext" "$(val pcmx)" 13
t_end

qpiu_unload
qpisim_unload
ktap_finish
