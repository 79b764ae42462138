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

# awk's encode("event=0x102,umask=0x08"): the control value (with en and
# rst) the driver writes for it
ENCODE='function encode(s,  t, kv, i, j, n, v, ev, um) {
	ev = 0; um = 0
	for (i = split(s, t, ","); i > 0; i--) {
		split(t[i], kv, "="); v = kv[2]; n = 0; sub(/^0x/, "", v)
		for (j = 1; j <= length(v); j++)
			n = n * 16 + index("0123456789abcdef", substr(tolower(v), j, 1)) - 1
		if (kv[1] == "event") ev = n; else if (kv[1] == "umask") um = n }
	return sprintf("0x%08x", (ev % 256) + int(ev / 256) % 2 * 2097152 + um * 256 + 4194304 + 131072) }'

# "pmu": the PMUs' events only, not the tracepoints too (half the time)
perf list --details pmu 2>/dev/null | awk '
	/^  unc_(q|r3)_/ { name = $1; next }
	name && /uncore_(qpi|r3qpi)_[0-9]+\// {
		split($1, p, "/"); print name, p[1], p[2]; name = "" }' > /tmp/perfev
nq=$(grep -c '^unc_q_' /tmp/perfev)
nr=$(grep -c '^unc_r3_' /tmp/perfev)
echo "# perf knows $nq QPI and $nr R3QPI events on this CPU"

t_begin "every_perf_event_has_our_alias"
[ "$nq" -gt 0 ] && [ "$nr" -gt 0 ] || fail "perf lists no uncore QPI/R3QPI events"
# one awk for the whole table (a process per event cost minutes in TCG)
awk -v pmus="$PMUS" "$ENCODE"'
	{ alias = $1; sub(/^unc_(q|r3)_/, "", alias)
	  kind = $2; sub(/_[0-9]+$/, "", kind)
	  f = pmus "/" kind "_0/events/" alias; ours = ""
	  if ((getline ours < f) <= 0) print $1 ": no alias " kind "/" alias
	  else if (encode(ours) != encode($3))
		print $1 ": perf says " $3 ", our alias " ours
	  close(f) }' /tmp/perfev > /tmp/perfbad
bad=0
while read -r line; do
	fail "$line"
	bad=$((bad + 1))
done < /tmp/perfbad
expect_num "mismatches" "$bad" 0
t_end

t_begin "perf_names_program_our_control_values"
# One perf stat opens every name, disabled (-D -1); its control FIFO then
# enables them a batch at a time and disables them again, and the model's
# log of config writes is kept per batch.  QPI: four per batch fill one
# port's counters in order; R3QPI: one per batch.  perf starts once, not
# once a batch: each start took seconds in TCG.
P=/tmp/perfnames
rm -rf $P
mkdir -p $P
mkfifo $P/ctl $P/ack $P/done
# batch numbers: "BATCH NAME FUNCTION-BDF OFFSET WANT" per event
awk "$ENCODE"'
	/^unc_q_/ { if (i % 4 == 0) b++
		    printf "%d %s 7f:08.2 0x%03x %s\n", b, $1, 216 + 4 * (i % 4), encode($3)
		    i++ }
	/^unc_r3_/ { r[++nr] = $1 " 7f:13.5 0x0d8 " encode($3) }
	END { for (j = 1; j <= nr; j++) print b + j, r[j] }' /tmp/perfev > $P/want
names=$(awk '{ printf "%s%s", s, $2; s = "," }' $P/want)
# every name on every port and link of both sockets: more than 1024 fds
# shellcheck disable=SC3045 # busybox ash has ulimit -n and read -t
ulimit -n 4096
# the FIFOs opened read-write: no open blocks, whatever perf does first
# (or if it died)
exec 7<> $P/done 8<> $P/ctl 9<> $P/ack
perf stat -a -x, -D -1 --control fifo:$P/ctl,$P/ack -e "$names" \
	-- sh -c "read -r x < $P/done" > $P/stat 2>&1 &
perfpid=$!
# ctl CMD: one command to perf stat, and its ack (the first comes once
# perf opened every event: seconds in TCG)
ctl()
{
	echo "$1" >&8
	# shellcheck disable=SC3045
	read -r -t 300 _ <&9 || {
		fail "perf stat gave no ack to '$1': $(head -c 300 $P/stat)"
		acked=no
		return 1
	}
}
acked=yes
: > $P/log
batch=0
while read -r b name _; do
	if [ "$b" != "$batch" ]; then
		[ "$batch" = 0 ] || { cat "$DBG/log" >> $P/log; ctl disable || break; }
		echo clear > "$DBG/log"
		echo "batch $b" >> $P/log
		batch=$b
	fi
	ctl "enable $name" || break
done < $P/want
cat "$DBG/log" >> $P/log
[ $acked = no ] || ctl disable
echo go >&7
wait $perfpid || fail "perf stat: rc $?: $(head -c 300 $P/stat)"
exec 7>&- 8>&- 9>&-
awk 'FNR == NR { if ($1 == "batch") b = $2; else w[b] = w[b] $0 "\n"; next }
     index(w[$1], " " $3 " where=" $4 " size=4 val=" $5 "\n") == 0 {
	print $2 ": no write of " $5 " to " $3 " " $4 }' \
	$P/log $P/want > $P/bad
awk 'FNR == NR { split($0, f, ","); c[f[3]] = f[1]; next }
	 !($2 in c) { print $2 ": perf stat printed no count" }
	 ($2 in c) && c[$2] !~ /^[0-9]+$/ { print $2 ": perf stat counted " c[$2] }' \
	$P/stat $P/want >> $P/bad
while read -r line; do
	fail "$line"
done < $P/bad
expect_num "events checked" "$(wc -l < $P/want)" $((nq + nr))
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
